/* eval.c: an expression's tree (node.h, built by parse.c) evaluated
 * over a scope of runs (SPEC section 4): names resolved through rows,
 * runs, series and columns, with the longest dotted name first; row
 * lookups; arithmetic, comparisons and logic; the functions; and, for
 * a computed value, the inputs its tooltip names.
 *
 * One concept although it is large: every part is one case of the same
 * walk, and they share its struct ref, its scope and its messages (an
 * unknown name with the closest candidate, a type mismatch), each at
 * the column of the node it is about. */
#include "expr/expr.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/value.h"
#include "node.h"

/* A dotted name tries at most this many parts at once ("a.b.c..."), so
 * that a pathological chain of dots stays linear. */
#define MAX_DOTTED 16

/* Row lookups that find nothing suggest the closest value among this
 * many rows, not among millions. */
#define SUGGEST_ROWS 1000

/* Lists shown in messages ("its columns: step, loss, ...") stop here. */
#define MAX_LISTED 8

/* What a name or a step names: a run, a series, a row of a series, or
 * a value (which may be a list: a column). */
enum ref_kind { REF_VALUE, REF_RUN, REF_SERIES, REF_ROW };

struct ref {
	enum ref_kind kind;
	const struct run *run;       /* the run, or the run holding the series */
	const struct series *series; /* REF_SERIES, REF_ROW */
	size_t row;                  /* REF_ROW */
	/* A value read from a run (a field, a cell, a column, also through
	 * first/last/min/max), not computed: its inputs entry names it. */
	bool picked;
	struct eval v; /* REF_VALUE */
};

struct ctx {
	const struct expr *e;
	const struct scope *sc;
	struct diag *d;
	bool want_series;  /* expr_eval_series(): the whole chain names a series */
	bool series_chain; /* the chain being resolved is that one */
};

static void ref_init(struct ref *r)
{
	memset(r, 0, sizeof *r);
	r->kind = REF_VALUE;
	r->v.kind = EVAL_MISSING;
}

void eval_clear(struct eval *v)
{
	if (!v)
		return;
	free(v->owned);
	free(v->inputs);
	free(v->why);
	memset(v, 0, sizeof *v);
	v->kind = EVAL_MISSING;
}

static void err(struct ctx *c, size_t off, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void err(struct ctx *c, size_t off, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	expr_report_at(c->d, c->e, off, len, fmt, ap);
	va_end(ap);
}

/* The source text of a node, for "%.*s". */
#define SRC(c, off, len) (int)(len), (c)->e->text + (off)

/* --- how precisely a number is known (SPEC: a computed value without
 * a spec is shown to the decimals its inputs had) --- */

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* The digits of x before the point (1.68: 1, 0.84: 0, 0.05: -1); 1 for
 * zero, which has one digit as written. */
static int magnitude(double x)
{
	if (x == 0 || !isfinite(x))
		return 1;
	return (int)floor(log10(fabs(x))) + 1;
}

/* The decimals of a number as written in s[0..n): the digits after its
 * point less its exponent ("7.12500": 5, "512000": 0, "2.5e-3": 4);
 * a unit may follow.  False when s does not begin with num itself (a
 * duration "150 ms" is 0.15 s, "12,345" is 12345). */
static bool text_decimals(const char *s, size_t n, double num, int *dec)
{
	double back;
	if (number_read_exact(s, n, &back)) {
		/* The whole text a plain decimal, as a log prints numbers
		 * (a mean over a million of them reads each): its digits
		 * after the point. */
		if (back != num)
			return false;
		const char *point = memchr(s, '.', n);
		*dec = point ? (int)(n - 1 - (size_t)(point - s)) : 0;
		return true;
	}
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	size_t start = i;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		i++;
	size_t digits = 0;
	int frac = 0;
	for (; i < n && is_digit(s[i]); i++)
		digits++;
	if (i < n && s[i] == '.')
		for (i++; i < n && is_digit(s[i]); i++, frac++)
			digits++;
	if (digits == 0)
		return false;
	long e = 0;
	if (i + 1 < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t k = i + 1;
		bool neg = s[k] == '-';
		if (s[k] == '-' || s[k] == '+')
			k++;
		if (k < n && is_digit(s[k])) {
			for (i = k; i < n && is_digit(s[i]); i++)
				if (e < 1000)
					e = e * 10 + (s[i] - '0');
			e = neg ? -e : e;
		}
	}
	char buf[64];
	if (number_read_exact(s + start, i - start, &back)) {
		/* as a log prints numbers: no strtod() for each */
	} else if (i - start < sizeof buf) {
		memcpy(buf, s + start, i - start);
		buf[i - start] = '\0';
		back = strtod(buf, NULL);
	} else {
		return false;
	}
	if (back != num)
		return false;
	long d = frac - e;
	*dec = d < -30 ? -30 : d > 30 ? 30 : (int)d;
	return true;
}

/* The decimals v is known to: from its computation, or its text. */
static bool decimals_of(const struct eval *v, int *dec)
{
	if (v->kind != EVAL_NUMBER)
		return false;
	if (v->dec_known) {
		*dec = v->dec;
		return true;
	}
	return v->text && text_decimals(v->text, v->len, v->num, dec);
}

static void set_decimals(struct eval *v, int dec)
{
	v->dec_known = true;
	v->dec = dec < -30 ? -30 : dec > 30 ? 30 : dec;
}

/* The decimals of an inexact result x (a quotient, a mean) that is
 * known to sig significant digits: never fewer than three, so that 2 / 3
 * reads 0.667. */
static int decimals_for(double x, int sig)
{
	return (sig < 3 ? 3 : sig) - magnitude(x);
}

static const char *kind_word(enum eval_kind k)
{
	switch (k) {
	case EVAL_MISSING: return "a missing value";
	case EVAL_NUMBER: return "a number";
	case EVAL_STRING: return "a string";
	case EVAL_BOOL: return "a boolean";
	case EVAL_LIST: return "a list";
	}
	return "a value";
}

static const char *ref_word(const struct ref *r)
{
	switch (r->kind) {
	case REF_RUN: return "a run";
	case REF_SERIES: return "a series";
	case REF_ROW: return "a row";
	case REF_VALUE: break;
	}
	return kind_word(r->v.kind);
}

static void datum_to_ref(const struct datum *dt, const struct run *run, struct ref *out)
{
	ref_init(out);
	out->run = run;
	out->picked = true;
	out->v.kind = dt->kind == DATUM_NUMBER   ? EVAL_NUMBER
		      : dt->kind == DATUM_STRING ? EVAL_STRING
						 : EVAL_MISSING;
	out->v.num = dt->num;
	out->v.text = dt->text;
	out->v.len = dt->len;
	out->v.file = run ? run_file(run) : NULL;
	out->v.line = dt->line;
}

/* A NULL-terminated list of names, for closest_name(). */
struct names {
	const char **v;
	size_t n, cap;
};

static void names_add(struct names *ns, const char *s)
{
	if (ns->n + 1 >= ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 16;
		ns->v = xrealloc(ns->v, ns->cap * sizeof *ns->v);
	}
	ns->v[ns->n++] = s;
	ns->v[ns->n] = NULL;
}

static const char *const *names_list(const struct names *ns)
{
	static const char *const none[] = {NULL};
	return ns->v ? ns->v : none;
}

/* What a name names, for a did-you-mean that never offers a name of
 * another kind than the place needs without saying so. */
enum name_kind { NK_COLUMN = 1, NK_FIELD = 2, NK_SERIES = 4, NK_RUN = 8 };

/* Names with their kinds: ns.v[i] is of kind kinds[i]. */
struct kinded {
	struct names ns;
	unsigned char *kinds;
	size_t cap;
};

static void kinded_add(struct kinded *k, const char *s, enum name_kind kind)
{
	if (k->ns.n + 1 > k->cap) {
		k->cap = k->cap ? k->cap * 2 : 16;
		k->kinds = xrealloc(k->kinds, k->cap);
	}
	k->kinds[k->ns.n] = (unsigned char)kind;
	names_add(&k->ns, s);
}

static void kinded_free(struct kinded *k)
{
	free(k->ns.v);
	free(k->kinds);
}

static void names_of_run(struct kinded *ns, const struct run *r)
{
	for (size_t i = 0; i < run_field_count(r); i++)
		kinded_add(ns, run_field_name(r, i), NK_FIELD);
	for (size_t i = 0; i < run_series_count(r); i++)
		kinded_add(ns, series_name(run_series_at(r, i)), NK_SERIES);
	static const char *const implicit[] = {"name", "file", "line_count", "parser"};
	for (size_t i = 0; i < ARRAY_LEN(implicit); i++)
		kinded_add(ns, implicit[i], NK_FIELD);
}

static void names_of_series(struct names *ns, const struct series *s)
{
	for (size_t i = 0; i < series_column_count(s); i++)
		names_add(ns, series_column(s, i));
}

static void names_of_runs(struct kinded *ns, const struct scope *sc)
{
	for (size_t i = 0; i < sc->nruns; i++)
		if (sc->runs[i])
			kinded_add(ns, run_name(sc->runs[i]), NK_RUN);
}

static const char *kind_noun(unsigned kind)
{
	switch (kind) {
	case NK_COLUMN: return "column";
	case NK_FIELD: return "field";
	case NK_SERIES: return "series";
	default: return "run";
	}
}

/* Can an expression write name: is each of its dotted parts an
 * identifier?  A did-you-mean offers only those ("mean-ttft", a JSON
 * key, cannot be written). */
static bool writable(const char *name)
{
	char *copy = xstrdup(name);
	bool ok = true;
	for (char *part = copy, *dot; ok; part = dot + 1) {
		dot = strchr(part, '.');
		if (dot)
			*dot = '\0';
		ok = is_identifier(part);
		if (!dot)
			break;
	}
	free(copy);
	return ok;
}

/* The closest to name of the names of the kinds in want; else, of the
 * others, with *other set to its kind's noun (the message must say
 * it: "did you mean the series 'train'?").  NULL when none is close. */
static const char *kinded_closest(const struct kinded *k, const char *name, unsigned want,
				  const char **other)
{
	*other = NULL;
	const char **pick = xcalloc(k->ns.n + 1, sizeof *pick);
	const char *hint = NULL;
	for (int pass = 0; pass < 2 && !hint; pass++) {
		size_t n = 0;
		for (size_t i = 0; i < k->ns.n; i++)
			if (((k->kinds[i] & want) != 0) == (pass == 0) && writable(k->ns.v[i]))
				pick[n++] = k->ns.v[i];
		pick[n] = NULL;
		hint = closest_name(name, pick);
		for (size_t i = 0; hint && pass == 1 && i < k->ns.n; i++)
			if (k->ns.v[i] == hint)
				*other = kind_noun(k->kinds[i]);
	}
	free(pick);
	return hint;
}

/* "step, loss, rate", or the first few and "...". */
static void put_columns(struct buf *b, const struct series *s)
{
	size_t n = series_column_count(s);
	for (size_t i = 0; i < n && i < MAX_LISTED; i++) {
		if (i)
			buf_puts(b, ", ");
		buf_puts(b, series_column(s, i));
	}
	if (n > MAX_LISTED)
		buf_puts(b, ", ...");
}

/* A dotted name being resolved: its parts, where each is written. */
struct dotted {
	const char *part[MAX_DOTTED];
	size_t off[MAX_DOTTED], end[MAX_DOTTED];
	size_t count;
};

/* The parts from `first` on and then the '.' steps from steps[i], up to
 * the first lookup. */
static void dotted_collect(struct dotted *dn, const char *first, size_t off, size_t len,
			   const struct step *steps, size_t nsteps, size_t i)
{
	dn->part[0] = first;
	dn->off[0] = off;
	dn->end[0] = off + len;
	dn->count = 1;
	for (; i < nsteps && !steps[i].lookup && dn->count < MAX_DOTTED; i++) {
		dn->part[dn->count] = steps[i].name;
		dn->off[dn->count] = steps[i].off;
		dn->end[dn->count] = steps[i].end;
		dn->count++;
	}
}

static char *dotted_join(const struct dotted *dn, size_t k)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < k; i++) {
		if (i)
			buf_putc(&b, '.');
		buf_puts(&b, dn->part[i]);
	}
	return buf_detach(&b);
}

/* How many parts of dn, joined with dots, name something that probe
 * finds: the longest such prefix wins, so that a field stored as
 * "summary.metis.mean" is found before a shorter one.  0 for none. */
static size_t dotted_match(const struct dotted *dn,
			   bool (*probe)(const void *arg, const char *name, struct ref *out),
			   const void *arg, struct ref *out)
{
	char *joined = dotted_join(dn, dn->count);
	size_t ends[MAX_DOTTED], at = 0;
	for (size_t i = 0; i < dn->count; i++) {
		at += strlen(dn->part[i]) + (i ? 1 : 0);
		ends[i] = at;
	}
	size_t found_k = 0;
	for (size_t k = dn->count; k > 0; k--) {
		joined[ends[k - 1]] = '\0';
		if (probe(arg, joined, out)) {
			found_k = k;
			break;
		}
	}
	free(joined);
	return found_k;
}

/* For an unknown dotted name: the longest prefix that is close to a
 * candidate, with that candidate as the hint; else the first part
 * alone, without one.  Caller frees m->name. */
struct miss {
	char *name;
	size_t off, len;
	const char *hint;
	const char *other; /* the hint's kind, when not one the place needs */
};

/* What the first k parts of dn may name: with nothing after them
 * (`last`: the chain ends there), a value (a field or a column; a
 * series where the chain must name one); with more after them, a run
 * or a series. */
static unsigned wanted(const struct ctx *c, const struct dotted *dn, size_t k, bool more)
{
	if (k < dn->count || more)
		return NK_RUN | NK_SERIES;
	return c->series_chain ? NK_SERIES : NK_FIELD | NK_COLUMN;
}

/* more: steps (a row lookup) follow dn's parts. */
static void dotted_miss(const struct ctx *c, const struct dotted *dn, const struct kinded *cands,
			bool more, struct miss *m)
{
	for (size_t k = dn->count; k > 0; k--) {
		char *joined = dotted_join(dn, k);
		const char *other;
		const char *hint = kinded_closest(cands, joined, wanted(c, dn, k, more), &other);
		if (hint || k == 1) {
			m->name = joined;
			m->off = dn->off[0];
			m->len = dn->end[k - 1] - dn->off[0];
			m->hint = hint;
			m->other = other;
			return;
		}
		free(joined);
	}
}

static bool probe_run(const void *arg, const char *name, struct ref *out)
{
	const struct run *r = arg;
	const struct datum *dt = run_field(r, name);
	if (dt) {
		datum_to_ref(dt, r, out);
		const char *inputs = dt->line == 0 ? run_field_inputs(r, name) : NULL;
		if (inputs) {
			/* a parser's derive: it names what it was computed from */
			out->picked = false;
			out->v.inputs = xstrdup(inputs);
		}
		return true;
	}
	const struct series *s = run_series(r, name);
	if (s) {
		ref_init(out);
		out->kind = REF_SERIES;
		out->run = r;
		out->series = s;
		return true;
	}
	return false;
}

struct colprobe {
	const struct series *s;
	const struct run *run;
	bool row; /* a row's cell; else the whole column */
	size_t rowi;
};

static bool probe_column(const void *arg, const char *name, struct ref *out)
{
	const struct colprobe *cp = arg;
	long col = series_column_index(cp->s, name);
	if (col < 0)
		return false;
	if (cp->row) {
		struct datum dt;
		series_cell(cp->s, cp->rowi, (size_t)col, &dt);
		datum_to_ref(&dt, cp->run, out);
		return true;
	}
	ref_init(out);
	out->run = cp->run;
	out->picked = true;
	out->v.kind = EVAL_LIST;
	out->v.series = cp->s;
	out->v.column = (size_t)col;
	out->v.file = cp->run ? run_file(cp->run) : NULL;
	return true;
}

static bool probe_runs(const void *arg, const char *name, struct ref *out)
{
	const struct scope *sc = arg;
	for (size_t i = 0; i < sc->nruns; i++) {
		if (sc->runs[i] && strcmp(run_name(sc->runs[i]), name) == 0) {
			ref_init(out);
			out->kind = REF_RUN;
			out->run = sc->runs[i];
			return true;
		}
	}
	return false;
}

bool expr_failed_use(const struct scope *sc, const char *name, struct loc at)
{
	for (size_t i = 0; i < sc->nfailed; i++) {
		if (strcmp(sc->failed[i], name) != 0)
			continue;
		struct failed_use *u = &sc->failed_use[i];
		bool first = !u->used ||
			     (at.line > 0 && u->file && at.file && strcmp(u->file, at.file) == 0 &&
			      (u->at.line == 0 || at.line < u->at.line ||
			       (at.line == u->at.line && at.col < u->at.col)));
		if (first) {
			u->used = true;
			free(u->file);
			u->file = at.file ? xstrdup(at.file) : NULL;
			u->at = at;
			u->at.file = u->file;
		}
		return true;
	}
	return false;
}

void failed_use_clear(struct failed_use *u, size_t n)
{
	for (size_t i = 0; u && i < n; i++) {
		free(u[i].file);
		u[i].file = NULL;
		u[i].at.file = NULL;
	}
}

static void hint_suffix(struct buf *b, const char *hint)
{
	if (hint)
		buf_printf(b, " (did you mean '%s'?)", hint);
}

/* A hint of another kind than the place needs names its kind. */
static void miss_suffix(struct buf *b, const struct miss *m)
{
	if (m->hint && m->other)
		buf_printf(b, " (did you mean the %s '%s'?)", m->other, m->hint);
	else
		hint_suffix(b, m->hint);
}

/* The first name of a chain: the scope's row, then its run, then the
 * runs by name.  Consumes the name and *i of the steps after it. */
static bool resolve_first(struct ctx *c, const struct node *base, const struct step *steps,
			  size_t nsteps, size_t *i, struct ref *out)
{
	const struct scope *sc = c->sc;
	struct dotted dn;
	dotted_collect(&dn, base->str, base->op_off, base->op_len, steps, nsteps, 0);
	size_t k = 0;
	if (sc->series) {
		struct colprobe cp = {sc->series, sc->run, true, sc->row};
		k = dotted_match(&dn, probe_column, &cp, out);
	}
	if (!k && sc->run)
		k = dotted_match(&dn, probe_run, sc->run, out);
	if (!k && sc->nruns) {
		k = dotted_match(&dn, probe_runs, sc, out);
		for (size_t r = 0; k && sc->runs_used && r < sc->nruns; r++)
			if (sc->runs[r] == out->run)
				sc->runs_used[r] = true;
	}
	if (k) {
		*i = k - 1;
		return true;
	}
	/* A run whose file or parser failed: its error is above, and the
	 * report gets one note for all its uses, not an error each. */
	if (expr_failed_use(sc, base->str, expr_loc(c->e, base->op_off, base->op_len)))
		return false;

	const struct func *fn = expr_find_func(base->str);
	if (fn) {
		err(c, base->op_off, base->op_len, "%s is a function: call it as %s", fn->name,
		    fn->usage);
		return false;
	}
	for (size_t set = 0; set < sc->nsets; set++) {
		if (strcmp(sc->set_names[set], base->str) == 0 && sc->set_files &&
		    sc->set_files[set] && sc->set_last && sc->set_last[set]) {
			/* a file of several runs: name one, or pick one */
			struct buf ex = BUF_INIT;
			buf_puts(&ex, sc->set_last[set]);
			for (size_t j = 1; j < dn.count; j++)
				buf_printf(&ex, ".%s", dn.part[j]);
			err(c, base->op_off, base->op_len,
			    "'%s' is a run set: %s holds %zu runs; name one, as in %s, or pick one "
			    "in runs: with { file: %s, run: last }",
			    base->str, sc->set_files[set], sc->set_counts[set], buf_data(&ex),
			    sc->set_files[set]);
			buf_free(&ex);
			return false;
		}
		if (strcmp(sc->set_names[set], base->str) == 0) {
			err(c, base->op_off, base->op_len,
			    "'%s' is a run set of %zu runs, not one run: name one of its runs "
			    "(by file stem), or show them all with a {table} whose rows: %s",
			    base->str, sc->set_counts[set], base->str);
			return false;
		}
	}
	struct kinded ns = {0};
	if (sc->series) {
		struct names cols = {0};
		names_of_series(&cols, sc->series);
		for (size_t j = 0; j < cols.n; j++)
			kinded_add(&ns, cols.v[j], NK_COLUMN);
		free(cols.v);
	}
	if (sc->run)
		names_of_run(&ns, sc->run);
	names_of_runs(&ns, sc);
	struct miss m;
	dotted_miss(c, &dn, &ns, dn.count - 1 < nsteps, &m);
	struct buf msg = BUF_INIT;
	int parts = (sc->series != NULL) + (sc->run != NULL) + (sc->nruns > 0);
	/* a message about one kind of name says what the hint is */
	if (parts == 1 && !sc->run)
		m.other = NULL;
	if (parts == 0) {
		buf_printf(&msg, "'%s' is not defined", m.name);
	} else if (parts == 1 && sc->series) {
		buf_printf(&msg, "series '%s' has no column '%s'", series_name(sc->series), m.name);
	} else if (parts == 1 && sc->run) {
		buf_printf(&msg, "%s has no field or series '%s'", run_name(sc->run), m.name);
	} else if (parts == 1) {
		buf_printf(&msg, "run '%s' is not defined", m.name);
	} else {
		/* "'x' is not a field or series of cs512, nor a run" */
		buf_printf(&msg, "'%s' is not ", m.name);
		const char *sep = "";
		if (sc->series) {
			buf_printf(&msg, "a column of series '%s'", series_name(sc->series));
			sep = ", nor ";
		}
		if (sc->run) {
			buf_printf(&msg, "%sa field or series of %s", sep, run_name(sc->run));
			sep = ", nor ";
		}
		if (sc->nruns)
			buf_printf(&msg, "%sa run", sep);
	}
	miss_suffix(&msg, &m);
	err(c, m.off, m.len, "%s", buf_data(&msg));
	buf_free(&msg);
	free(m.name);
	kinded_free(&ns);
	return false;
}

static bool cell_matches(const struct datum *dt, const struct step *st)
{
	if (dt->kind == DATUM_MISSING)
		return false;
	if (st->lit_is_num && dt->kind == DATUM_NUMBER)
		return dt->num == st->lit_num;
	return dt->text && dt->len == st->lit_len && memcmp(dt->text, st->lit, dt->len) == 0;
}

/* series[column=literal]: the first row whose column equals the literal. */
static bool lookup_row(struct ctx *c, const struct series *s, const struct step *st, size_t *row)
{
	long col = series_column_index(s, st->name);
	if (col < 0) {
		struct names ns = {0};
		names_of_series(&ns, s);
		struct buf msg = BUF_INIT;
		buf_printf(&msg, "series '%s' has no column '%s'", series_name(s), st->name);
		/* a row lookup names its column: only a writable one */
		size_t w = 0;
		for (size_t j = 0; j < ns.n; j++)
			if (writable(ns.v[j]))
				ns.v[w++] = ns.v[j];
		ns.n = w;
		hint_suffix(&msg, closest_name(st->name, names_list(&ns)));
		err(c, st->off, st->len, "%s", buf_data(&msg));
		buf_free(&msg);
		free(ns.v);
		return false;
	}
	size_t n = series_row_count(s);
	struct datum dt;
	for (size_t r = 0; r < n; r++) {
		series_cell(s, r, (size_t)col, &dt);
		if (cell_matches(&dt, st)) {
			*row = r;
			return true;
		}
	}
	/* Suggest a value of the column that is close to the literal: a
	 * typo in "groq" more likely than a missing row. */
	struct names ns = {0};
	char **owned = xcalloc(n < SUGGEST_ROWS ? n + 1 : SUGGEST_ROWS + 1, sizeof *owned);
	size_t nowned = 0;
	for (size_t r = 0; r < n && r < SUGGEST_ROWS; r++) {
		series_cell(s, r, (size_t)col, &dt);
		if (dt.kind == DATUM_STRING && dt.text) {
			owned[nowned] = xstrndup(dt.text, dt.len);
			names_add(&ns, owned[nowned++]);
		}
	}
	struct buf msg = BUF_INIT;
	buf_printf(&msg, "series '%s' has no row where %s = %.*s", series_name(s), st->name,
		   SRC(c, st->lit_off, st->lit_tlen));
	if (!st->lit_is_num)
		hint_suffix(&msg, closest_name(st->lit, names_list(&ns)));
	err(c, st->lit_off, st->lit_tlen, "%s", buf_data(&msg));
	buf_free(&msg);
	for (size_t i = 0; i < nowned; i++)
		free(owned[i]);
	free(owned);
	free(ns.v);
	return false;
}

/* Applies steps[*i] (and, for a dotted name, the '.' steps after it) to
 * cur.  chain_off is where the chain begins, for messages that quote
 * it. */
static bool apply_step(struct ctx *c, size_t chain_off, const struct step *steps, size_t nsteps,
		       size_t *i, struct ref *cur)
{
	const struct step *st = &steps[*i];
	size_t upto = st->start; /* the chain so far ends before this step */
	while (upto > chain_off && (c->e->text[upto - 1] == ' ' || c->e->text[upto - 1] == '\t'))
		upto--;
	struct ref next;
	ref_init(&next);
	struct dotted dn;
	struct colprobe cp = {cur->series, cur->run, cur->kind == REF_ROW, cur->row};
	size_t k;

	if (st->lookup) {
		if (cur->kind != REF_SERIES) {
			err(c, st->start, st->end - st->start,
			    "'[...]' picks a row of a series, but %.*s is %s",
			    SRC(c, chain_off, upto - chain_off), ref_word(cur));
			return false;
		}
		size_t row;
		if (!lookup_row(c, cur->series, st, &row))
			return false;
		next.kind = REF_ROW;
		next.run = cur->run;
		next.series = cur->series;
		next.row = row;
		*i += 1;
		*cur = next;
		return true;
	}

	dotted_collect(&dn, st->name, st->off, st->len, steps, nsteps, *i + 1);
	switch (cur->kind) {
	case REF_RUN:
		k = dotted_match(&dn, probe_run, cur->run, &next);
		break;
	case REF_SERIES:
	case REF_ROW:
		k = dotted_match(&dn, probe_column, &cp, &next);
		break;
	case REF_VALUE:
	default:
		err(c, st->off, st->len, "%.*s is %s: it has no field '%s'",
		    SRC(c, chain_off, upto - chain_off), ref_word(cur), st->name);
		return false;
	}
	if (k) {
		*i += k;
		*cur = next;
		return true;
	}

	struct kinded ns = {0};
	if (cur->kind == REF_RUN) {
		names_of_run(&ns, cur->run);
	} else {
		struct names cols = {0};
		names_of_series(&cols, cur->series);
		for (size_t j = 0; j < cols.n; j++)
			kinded_add(&ns, cols.v[j], NK_COLUMN);
		free(cols.v);
	}
	struct miss m;
	dotted_miss(c, &dn, &ns, *i + dn.count < nsteps, &m);
	struct buf msg = BUF_INIT;
	if (cur->kind == REF_RUN) {
		buf_printf(&msg, "%s has no field or series '%s'", run_name(cur->run), m.name);
	} else {
		buf_printf(&msg, "series '%s' has no column '%s'", series_name(cur->series),
			   m.name);
		m.other = NULL; /* columns only */
	}
	miss_suffix(&msg, &m);
	err(c, m.off, m.len, "%s", buf_data(&msg));
	buf_free(&msg);
	free(m.name);
	kinded_free(&ns);
	return false;
}

static bool eval_ref(struct ctx *c, const struct node *n, struct ref *out);

/* A name, or a primary followed by '.' names and row lookups. */
static bool eval_chain(struct ctx *c, const struct node *n, struct ref *out)
{
	const struct node *base = n->kind == N_NAME ? n : n->a;
	const struct step *steps = n->kind == N_POST ? n->steps : NULL;
	size_t nsteps = n->kind == N_POST ? n->nsteps : 0;
	size_t i = 0;
	bool ok;
	c->series_chain = c->want_series && n == c->e->root;
	if (base->kind == N_NAME) {
		/* "(a).b" is not the dotted name "a.b": the parenthesised
		 * name is resolved alone, then .b applies to what it names. */
		bool alone = base->off != base->op_off;
		ok = resolve_first(c, base, steps, alone ? 0 : nsteps, &i, out);
		if (ok && alone)
			i = 0;
	} else {
		ok = eval_ref(c, base, out);
	}
	while (ok && i < nsteps)
		ok = apply_step(c, n->off, steps, nsteps, &i, out);
	if (!ok)
		eval_clear(&out->v);
	else if (out->kind == REF_VALUE && out->v.kind == EVAL_MISSING && !out->v.why) {
		struct buf why = BUF_INIT;
		const struct eval *v = &out->v;
		if (v->text && v->len && v->file && *v->file && v->line > 0)
			buf_printf(&why, "%.*s: the log has '%.*s' (%s:%ld)", SRC(c, n->off, n->len),
				   (int)v->len, v->text, v->file, v->line);
		else if (v->file && *v->file)
			buf_printf(&why, "%.*s is not in %s", SRC(c, n->off, n->len), v->file);
		else
			buf_printf(&why, "%.*s has no value", SRC(c, n->off, n->len));
		out->v.why = buf_detach(&why);
	}
	return ok;
}

/* A value, possibly a list: a run, a series or a row is an error that
 * says how to get a value out of it. */
static bool eval_value(struct ctx *c, const struct node *n, struct ref *out)
{
	if (!eval_ref(c, n, out))
		return false;
	struct buf msg = BUF_INIT;
	switch (out->kind) {
	case REF_VALUE:
		return true;
	case REF_RUN:
		buf_printf(&msg, "%.*s is a run, not a value: name one of its fields",
			   SRC(c, n->off, n->len));
		if (run_field_count(out->run) > 0)
			buf_printf(&msg, ", as in %.*s.%s", SRC(c, n->off, n->len),
				   run_field_name(out->run, 0));
		break;
	case REF_SERIES:
	case REF_ROW:
		buf_printf(&msg, "%.*s is %s, not a value: name one of its columns (",
			   SRC(c, n->off, n->len), ref_word(out));
		put_columns(&msg, out->series);
		buf_putc(&msg, ')');
		break;
	}
	err(c, n->off, n->len, "%s", buf_data(&msg));
	buf_free(&msg);
	return false;
}

static void list_error(struct ctx *c, const struct node *n, const struct eval *v)
{
	size_t rows = series_row_count(v->series);
	err(c, n->off, n->len,
	    "%.*s is a list of %zu value%s: choose one with mean, median, min, max, sum, count, "
	    "first, last, std or percentile",
	    SRC(c, n->off, n->len), rows, rows == 1 ? "" : "s");
}

/* One value: a list is an error naming the aggregations. */
static bool eval_one(struct ctx *c, const struct node *n, struct ref *out)
{
	if (!eval_value(c, n, out))
		return false;
	if (out->v.kind == EVAL_LIST) {
		list_error(c, n, &out->v);
		eval_clear(&out->v);
		return false;
	}
	return true;
}

static void put_value_text(struct buf *b, const struct eval *v)
{
	if (v->text && v->kind != EVAL_BOOL) {
		buf_put(b, v->text, v->len);
		return;
	}
	switch (v->kind) {
	case EVAL_NUMBER: number_put(b, v->num); break;
	case EVAL_BOOL: buf_puts(b, v->boolean ? "true" : "false"); break;
	case EVAL_MISSING: buf_puts(b, "missing"); break;
	case EVAL_STRING:
	case EVAL_LIST: break;
	}
}

/* "cs512.total_time = 175.070497198 (logs/bs512.log:52)", or for a
 * column "cs512.train.loss = 10 values (logs/bs512.log:43-97)". */
static char *input_entry(struct ctx *c, const struct node *n, const struct ref *r)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "%.*s = ", SRC(c, n->off, n->len));
	const struct eval *v = &r->v;
	if (v->kind == EVAL_LIST) {
		size_t rows = series_row_count(v->series);
		buf_printf(&b, "%zu value%s", rows, rows == 1 ? "" : "s");
		if (v->file && *v->file) {
			buf_printf(&b, " (%s", v->file);
			long first = rows ? series_row_line(v->series, 0) : 0;
			long last = rows ? series_row_line(v->series, rows - 1) : 0;
			if (first > 0 && last > first)
				buf_printf(&b, ":%ld-%ld", first, last);
			else if (first > 0)
				buf_printf(&b, ":%ld", first);
			buf_putc(&b, ')');
		}
	} else {
		put_value_text(&b, v);
		if (v->file && *v->file) {
			buf_printf(&b, " (%s", v->file);
			if (v->line > 0)
				buf_printf(&b, ":%ld", v->line);
			buf_putc(&b, ')');
		}
	}
	return buf_detach(&b);
}

static bool inputs_have(const char *inputs, const char *entry)
{
	size_t n = strlen(entry);
	for (const char *p = inputs; (p = strstr(p, entry)) != NULL; p++) {
		bool starts = p == inputs || (p - inputs >= 2 && p[-2] == ';' && p[-1] == ' ');
		bool ends = p[n] == '\0' || (p[n] == ';' && p[n + 1] == ' ');
		if (starts && ends)
			return true;
	}
	return false;
}

static void inputs_add(char **inputs, const char *entry, size_t len)
{
	char *e = xstrndup(entry, len);
	if (!*inputs) {
		*inputs = e;
		return;
	}
	if (!inputs_have(*inputs, e)) {
		char *joined = xasprintf("%s; %s", *inputs, e);
		free(*inputs);
		*inputs = joined;
	}
	free(e);
}

/* Adds what a computed value used: an operand read from a run by name,
 * or the inputs the operand itself was computed from. */
static void inputs_from(struct ctx *c, char **inputs, const struct node *n, const struct ref *r)
{
	if (r->picked) {
		char *e = input_entry(c, n, r);
		inputs_add(inputs, e, strlen(e));
		free(e);
		return;
	}
	if (!r->v.inputs)
		return;
	for (const char *p = r->v.inputs; *p;) {
		const char *sep = strstr(p, "; ");
		size_t len = sep ? (size_t)(sep - p) : strlen(p);
		inputs_add(inputs, p, len);
		p += len;
		if (sep)
			p += 2;
	}
}

/* out becomes a computed value (no text, no line) of kind k. */
static void set_computed(struct ref *out, enum eval_kind k, char *inputs)
{
	ref_init(out);
	out->v.kind = k;
	out->v.inputs = inputs;
}

static bool eval_neg(struct ctx *c, const struct node *n, struct ref *out)
{
	struct ref a;
	if (!eval_one(c, n->a, &a))
		return false;
	if (a.v.kind != EVAL_NUMBER && a.v.kind != EVAL_MISSING) {
		err(c, n->op_off, n->op_len, "cannot negate %s", kind_word(a.v.kind));
		eval_clear(&a.v);
		return false;
	}
	char *inputs = NULL;
	inputs_from(c, &inputs, n->a, &a);
	set_computed(out, a.v.kind, inputs);
	out->v.num = -a.v.num;
	int dec;
	if (decimals_of(&a.v, &dec))
		set_decimals(&out->v, dec);
	if (a.v.why)
		out->v.why = xstrdup(a.v.why);
	eval_clear(&a.v);
	return true;
}

/* and, or, not take booleans: a number is not silently one. */
static bool need_bool(struct ctx *c, const struct node *op, const struct node *n,
		      const struct ref *r)
{
	if (r->v.kind == EVAL_BOOL)
		return true;
	err(c, n->off, n->len, "'%.*s' needs %s, but %.*s is %s", SRC(c, op->op_off, op->op_len),
	    op->kind == N_NOT ? "a boolean" : "booleans", SRC(c, n->off, n->len),
	    kind_word(r->v.kind));
	return false;
}

/* The boolean operand x of n (and, or, not), evaluated into *r (taken),
 * in *result, named in *inputs; on an error *inputs is freed. */
static bool take_bool(struct ctx *c, const struct node *n, const struct node *x, struct ref *r,
		      bool *result, char **inputs)
{
	if (!need_bool(c, n, x, r)) {
		eval_clear(&r->v);
		free(*inputs);
		*inputs = NULL;
		return false;
	}
	inputs_from(c, inputs, x, r);
	*result = r->v.boolean;
	eval_clear(&r->v);
	return true;
}

/* not x; and, or with their left operand a already evaluated (taken).
 * and, or short-circuit, as every language a reader knows does: the
 * right side of "x > 0 and 1 / x < 2" is not evaluated for x = 0. */
static bool eval_logic(struct ctx *c, const struct node *n, struct ref *a, struct ref *out)
{
	char *inputs = NULL;
	bool result;
	if (!take_bool(c, n, n->a, a, &result, &inputs))
		return false;
	if (n->kind == N_NOT) {
		result = !result;
	} else if (result == (n->kind == N_AND)) {
		struct ref b;
		if (!eval_one(c, n->b, &b)) {
			free(inputs);
			return false;
		}
		if (!take_bool(c, n, n->b, &b, &result, &inputs))
			return false;
	}
	set_computed(out, EVAL_BOOL, inputs);
	out->v.boolean = result;
	return true;
}

static const char *const op_text[] = {"+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">="};

static bool compare(struct ctx *c, const struct node *n, const struct eval *a,
		    const struct eval *b, bool *result)
{
	/* Missing compares false with everything, != included (like NaN):
	 * a row with no value passes no filter. */
	if (a->kind == EVAL_MISSING || b->kind == EVAL_MISSING) {
		*result = false;
		return true;
	}
	int cmp;
	if (a->kind == EVAL_NUMBER && b->kind == EVAL_NUMBER) {
		cmp = a->num < b->num ? -1 : a->num > b->num ? 1 : 0;
		if (isnan(a->num) || isnan(b->num)) {
			*result = n->op == OP_NE;
			return true;
		}
	} else if (a->kind == EVAL_STRING && b->kind == EVAL_STRING) {
		size_t m = a->len < b->len ? a->len : b->len;
		cmp = m ? memcmp(a->text, b->text, m) : 0;
		if (cmp == 0)
			cmp = a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
	} else if (a->kind == EVAL_BOOL && b->kind == EVAL_BOOL) {
		if (n->op != OP_EQ && n->op != OP_NE) {
			err(c, n->op_off, n->op_len,
			    "booleans have no order: '%s' needs numbers or strings",
			    op_text[n->op]);
			return false;
		}
		cmp = a->boolean == b->boolean ? 0 : 1;
	} else {
		err(c, n->op_off, n->op_len, "cannot compare %s and %s", kind_word(a->kind),
		    kind_word(b->kind));
		return false;
	}
	switch (n->op) {
	case OP_EQ: *result = cmp == 0; break;
	case OP_NE: *result = cmp != 0; break;
	case OP_LT: *result = cmp < 0; break;
	case OP_LE: *result = cmp <= 0; break;
	case OP_GT: *result = cmp > 0; break;
	case OP_GE: *result = cmp >= 0; break;
	default: assert(0);
	}
	return true;
}

static void type_error(struct ctx *c, const struct node *n, const struct eval *a,
		       const struct eval *b)
{
	const char *ka = kind_word(a->kind), *kb = kind_word(b->kind);
	switch (n->op) {
	case OP_ADD: err(c, n->op_off, n->op_len, "cannot add %s and %s", ka, kb); break;
	case OP_SUB: err(c, n->op_off, n->op_len, "cannot subtract %s from %s", kb, ka); break;
	case OP_MUL: err(c, n->op_off, n->op_len, "cannot multiply %s by %s", ka, kb); break;
	default: err(c, n->op_off, n->op_len, "cannot divide %s by %s", ka, kb); break;
	}
}

/* Arithmetic on numbers; '+' also joins two strings.  Missing
 * propagates: missing + 1 is missing. */
static bool arith(struct ctx *c, const struct node *n, const struct eval *a, const struct eval *b,
		  struct ref *out)
{
	bool a_ok = a->kind == EVAL_NUMBER || a->kind == EVAL_MISSING;
	bool b_ok = b->kind == EVAL_NUMBER || b->kind == EVAL_MISSING;
	if (n->op == OP_ADD && a->kind == EVAL_STRING && b->kind == EVAL_STRING) {
		out->v.kind = EVAL_STRING;
		out->v.owned = xmalloc(a->len + b->len + 1);
		if (a->len)
			memcpy(out->v.owned, a->text, a->len);
		if (b->len)
			memcpy(out->v.owned + a->len, b->text, b->len);
		out->v.owned[a->len + b->len] = '\0';
		out->v.text = out->v.owned;
		out->v.len = a->len + b->len;
		return true;
	}
	if (!a_ok || !b_ok) {
		type_error(c, n, a, b);
		return false;
	}
	if (a->kind == EVAL_MISSING || b->kind == EVAL_MISSING) {
		const char *why = a->kind == EVAL_MISSING ? a->why : b->why;
		out->v.kind = EVAL_MISSING;
		out->v.why = why ? xstrdup(why) : NULL;
		return true;
	}
	out->v.kind = EVAL_NUMBER;
	switch (n->op) {
	case OP_ADD: out->v.num = a->num + b->num; break;
	case OP_SUB: out->v.num = a->num - b->num; break;
	case OP_MUL: out->v.num = a->num * b->num; break;
	default:
		if (b->num == 0) {
			err(c, n->b->off, n->b->len, "division by zero: %.*s is 0",
			    SRC(c, n->b->off, n->b->len));
			return false;
		}
		out->v.num = a->num / b->num;
	}
	/* Shown to the decimals of the numbers as written: a sum or a
	 * difference to the most decimals of the two and a product to
	 * their total (both exact: 0.1 + 0.2 is 0.3, 0.84 * 2 is 1.68), a
	 * quotient to the significant digits of the less precise. */
	int da, db;
	if (decimals_of(a, &da) && decimals_of(b, &db)) {
		if (n->op == OP_ADD || n->op == OP_SUB)
			set_decimals(&out->v, da > db ? da : db);
		else if (n->op == OP_MUL)
			set_decimals(&out->v, da + db);
		else {
			int sa = magnitude(a->num) + da, sb = magnitude(b->num) + db;
			set_decimals(&out->v, decimals_for(out->v.num, sa < sb ? sa : sb));
		}
	}
	return true;
}

/* n, an arithmetic operator or a comparison, with its left operand
 * already evaluated into *a (taken). */
static bool eval_binary(struct ctx *c, const struct node *n, struct ref *a, struct ref *out)
{
	struct ref b;
	if (!eval_one(c, n->b, &b)) {
		eval_clear(&a->v);
		return false;
	}
	char *inputs = NULL;
	inputs_from(c, &inputs, n->a, a);
	inputs_from(c, &inputs, n->b, &b);
	set_computed(out, EVAL_MISSING, inputs);
	bool ok;
	if (n->op >= OP_EQ) {
		out->v.kind = EVAL_BOOL;
		ok = compare(c, n, &a->v, &b.v, &out->v.boolean);
	} else {
		ok = arith(c, n, &a->v, &b.v, out);
	}
	eval_clear(&a->v);
	eval_clear(&b.v);
	if (!ok)
		eval_clear(&out->v);
	return ok;
}

/* A chain of infix operators, "a + b - c + ..." or "x and y and z": the
 * parser builds it to the left, ((a + b) - c) + ..., as deep as the
 * chain is long.  Its left operands are walked with a loop, from the
 * innermost out, so that a long sum costs no stack: the depth limit
 * (expr_depth) is on nesting, not on length (node.h, height). */
static bool eval_chain_ops(struct ctx *c, const struct node *n, struct ref *out)
{
	const struct node *small[32], **spine = small;
	size_t k = 0, cap = ARRAY_LEN(small);
	const struct node *x = n;
	for (; node_is_chain(x); x = x->a) {
		if (k == cap) {
			cap *= 2;
			const struct node **grown = xmalloc(cap * sizeof *grown);
			memcpy(grown, spine, k * sizeof *grown);
			if (spine != small)
				free(spine);
			spine = grown;
		}
		spine[k++] = x;
	}
	struct ref acc;
	bool ok = eval_one(c, x, &acc);
	while (ok && k > 0) {
		const struct node *s = spine[--k];
		struct ref r;
		ok = s->kind == N_BIN ? eval_binary(c, s, &acc, &r) : eval_logic(c, s, &acc, &r);
		if (ok)
			acc = r;
	}
	if (spine != small)
		free(spine);
	if (ok)
		*out = acc;
	return ok;
}

struct item {
	double num;
	size_t row;
};

static int item_cmp(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	/* NaN (a diverged loss) sorts last, so the order stays total. */
	bool na = isnan(a->num), nb = isnan(b->num);
	if (na != nb)
		return na ? 1 : -1;
	if (!na && a->num != b->num)
		return a->num < b->num ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row ? 1 : 0;
}

/* The cell at row of the list, as a picked value. */
static void pick_cell(const struct ref *list, size_t row, struct ref *out)
{
	struct datum dt;
	series_cell(list->v.series, row, list->v.column, &dt);
	datum_to_ref(&dt, list->run, out);
}

/* The p-th percentile (0..100) of the sorted items, interpolated
 * linearly between the two nearest ranks (numpy's default).  When the
 * rank falls on an item, that item is the result, text and line kept. */
static void percentile_of(const struct ref *list, const struct item *it, size_t n, double p,
			  char *inputs, struct ref *out)
{
	double rank = p / 100.0 * (double)(n - 1);
	size_t lo = (size_t)floor(rank);
	double frac = rank - (double)lo;
	if (frac == 0 || lo + 1 >= n) {
		free(inputs);
		pick_cell(list, it[lo].row, out);
		return;
	}
	set_computed(out, EVAL_NUMBER, inputs);
	out->v.num = it[lo].num + (it[lo + 1].num - it[lo].num) * frac;
}

static bool agg_numeric(enum fn_id fn)
{
	return fn != FN_COUNT && fn != FN_FIRST && fn != FN_LAST;
}

/* Row r's cell dt (not missing; shortest: marked so when it was
 * appended) into what the aggregations' loop keeps of the cells it has
 * seen (struct expr_agg_loop, expr.h).  False when fn needs numbers and
 * dt is not one.  One step for the rows of a kept series
 * (eval_aggregate()) and for those of a streamed one (expr_agg_add()),
 * so that both give the same bytes. */
static bool agg_step(struct expr_agg_loop *a, enum fn_id fn, const struct datum *dt, bool shortest,
		     int known, size_t r)
{
	bool numeric = agg_numeric(fn);
	int dec;
	if (dt->kind == DATUM_NUMBER && a->dec_all && known >= 0) {
		/* a store's plain decimal, its text not made */
		a->maxdec = known > a->maxdec ? known : a->maxdec;
	} else if (dt->kind == DATUM_NUMBER && a->dec_all && shortest) {
		/* read from its text, a plain decimal: the digits after
		 * its point, with no second reading */
		const char *point = memchr(dt->text, '.', dt->len);
		dec = point ? (int)(dt->len - 1 - (size_t)(point - dt->text)) : 0;
		a->maxdec = dec > a->maxdec ? dec : a->maxdec;
	} else if (dt->kind == DATUM_NUMBER && a->dec_all && dt->text &&
		   text_decimals(dt->text, dt->len, dt->num, &dec))
		a->maxdec = dec > a->maxdec ? dec : a->maxdec;
	else if (dt->kind == DATUM_NUMBER)
		a->dec_all = false;
	if (numeric && dt->kind != DATUM_NUMBER)
		return false;
	if (a->n_ok == 0) {
		a->first = a->best = r;
		a->best_num = dt->num;
	}
	a->last = r;
	if (numeric) {
		double x = dt->num, t = a->sum + x;
		if (isfinite(t))
			a->comp += fabs(a->sum) >= fabs(x) ? (a->sum - t) + x : (x - t) + a->sum;
		a->sum = t;
		/* Ties keep the first row; a NaN never wins. */
		if (fn == FN_MIN ? x < a->best_num || isnan(a->best_num)
				 : x > a->best_num || isnan(a->best_num)) {
			a->best = r;
			a->best_num = x;
		}
	}
	a->n_ok++;
	return true;
}

/* "mean needs numbers, but train.loss holds the string 'x' (f:3)" */
static void numbers_error(struct ctx *c, const struct node *n, const struct datum *dt,
			  const struct run *run)
{
	const struct node *arg = n->args[0];
	struct buf msg = BUF_INIT;
	buf_printf(&msg, "%s needs numbers, but %.*s holds the string '%.*s'", n->fn->name,
		   SRC(c, arg->off, arg->len), (int)dt->len, dt->text ? dt->text : "");
	if (dt->line > 0)
		buf_printf(&msg, " (%s:%ld)", run_file(run), dt->line);
	err(c, arg->off, arg->len, "%s", buf_data(&msg));
	buf_free(&msg);
}

void expr_agg_init(struct expr_agg *a, int fn)
{
	memset(a, 0, sizeof *a);
	a->fn = fn;
	a->loop.dec_all = true;
}

void expr_agg_free(struct expr_agg *a)
{
	buf_free(&a->pick_text);
	buf_free(&a->bad_text);
	expr_agg_init(a, a->fn);
}

void expr_agg_reset(struct expr_agg *a)
{
	struct buf pick = a->pick_text, bad = a->bad_text;
	expr_agg_init(a, a->fn);
	buf_clear(&pick);
	buf_clear(&bad);
	a->pick_text = pick;
	a->bad_text = bad;
}

/* A copy of dt whose text is in b. */
static void agg_keep(struct datum *to, struct buf *b, const struct datum *dt)
{
	*to = *dt;
	if (dt->text) {
		buf_clear(b);
		buf_put(b, dt->text, dt->len);
		to->text = buf_data(b);
	}
}

/* agg_keep() of a cell whose text may not be made yet (dec >= 0: a
 * store's plain decimal, series_cell_number()). */
static void agg_keep_cell(struct datum *to, struct buf *b, const struct datum *dt, int dec)
{
	if (dt->text || dec < 0) {
		agg_keep(to, b, dt);
		return;
	}
	char text[NUMBER_FIXED_MAX];
	struct datum d = *dt;
	d.len = number_put_fixed(dt->num, (unsigned)dec, text);
	d.text = text;
	agg_keep(to, b, &d);
}

void expr_agg_add(struct expr_agg *a, const struct datum *dt, bool shortest, int dec)
{
	size_t r = a->rows++;
	if (dt->kind == DATUM_MISSING || a->bad)
		return;
	enum fn_id fn = (enum fn_id)a->fn;
	if (fn == FN_FIRST || fn == FN_LAST) {
		/* the first or last cell that is not missing, as it is (the
		 * loop reads no other: no decimals) */
		if (fn == FN_LAST || a->loop.n_ok == 0)
			agg_keep_cell(&a->pick, &a->pick_text, dt, dec);
		a->loop.n_ok = 1;
		return;
	}
	if (!agg_step(&a->loop, fn, dt, shortest, dec, r)) {
		a->bad = true;
		agg_keep(&a->bad_cell, &a->bad_text, dt);
		return;
	}
	if ((fn == FN_MIN || fn == FN_MAX) && a->loop.best == r)
		agg_keep_cell(&a->pick, &a->pick_text, dt, dec);
}

bool expr_agg_reads_all(int fn)
{
	enum fn_id id = (enum fn_id)fn;
	return id == FN_MIN || id == FN_MAX || id == FN_COUNT || id == FN_SUM || id == FN_MEAN;
}

static void put_datum(struct buf *out, const struct datum *d)
{
	wire_put_u64(out, (uint64_t)d->kind);
	wire_put_f64(out, d->num);
	wire_put_u64(out, d->text != NULL);
	wire_put_bytes(out, d->text ? d->text : "", d->text ? d->len : 0);
	wire_put_u64(out, (uint64_t)(int64_t)d->line);
}

void expr_agg_save(const struct expr_agg *a, struct buf *out)
{
	wire_put_u64(out, a->rows);
	wire_put_u64(out, a->loop.n_ok);
	wire_put_u64(out, a->loop.first);
	wire_put_u64(out, a->loop.last);
	wire_put_u64(out, a->loop.best);
	wire_put_f64(out, a->loop.best_num);
	wire_put_f64(out, a->loop.sum);
	wire_put_f64(out, a->loop.comp);
	wire_put_u64(out, (uint64_t)(int64_t)a->loop.maxdec);
	wire_put_u64(out, a->loop.dec_all);
	put_datum(out, &a->pick);
	wire_put_u64(out, a->bad);
	put_datum(out, &a->bad_cell);
}

static bool get_flag(struct wire_rd *r)
{
	uint64_t v = wire_u64(r);
	if (v > 1)
		r->bad = true;
	return v == 1;
}

/* A datum whose text goes into b. */
static void get_datum(struct wire_rd *r, struct datum *d, struct buf *b)
{
	uint64_t kind = wire_u64(r);
	d->num = wire_f64(r);
	bool has_text = get_flag(r);
	struct span t = wire_span(r);
	d->line = (long)(int64_t)wire_u64(r);
	if (kind > DATUM_STRING)
		r->bad = true;
	d->kind = r->bad ? DATUM_MISSING : (enum datum_kind)kind;
	buf_clear(b);
	d->text = NULL;
	d->len = 0;
	if (has_text && !r->bad) {
		buf_put(b, t.p, t.len);
		d->text = buf_data(b);
		d->len = t.len;
	}
}

void expr_agg_load(struct expr_agg *a, struct wire_rd *r, size_t rows)
{
	uint64_t covered = wire_u64(r);
	struct expr_agg_loop *l = &a->loop;
	uint64_t n_ok = wire_u64(r), first = wire_u64(r), last = wire_u64(r),
		 best = wire_u64(r);
	l->best_num = wire_f64(r);
	l->sum = wire_f64(r);
	l->comp = wire_f64(r);
	int64_t maxdec = (int64_t)wire_u64(r);
	l->dec_all = get_flag(r);
	get_datum(r, &a->pick, &a->pick_text);
	a->bad = get_flag(r);
	get_datum(r, &a->bad_cell, &a->bad_text);
	/* maxdec only grows from 0 (and one more decimal is added to it) */
	if (covered > rows || n_ok > covered || maxdec < 0 || maxdec > INT_MAX / 2 ||
	    (n_ok && (first >= covered || last >= covered || best >= covered)))
		r->bad = true;
	if (r->bad)
		return;
	a->rows = (size_t)covered;
	l->n_ok = (size_t)n_ok;
	l->first = (size_t)first;
	l->last = (size_t)last;
	l->best = (size_t)best;
	l->maxdec = (int)maxdec;
}

static bool is_aggregate(enum fn_id id)
{
	return id != FN_ABS && id != FN_ROUND;
}

/* Can fn be taken as rows pass (expr_agg_add())? */
static bool agg_streams(enum fn_id id)
{
	return id == FN_FIRST || id == FN_LAST || id == FN_MIN || id == FN_MAX ||
	       id == FN_COUNT || id == FN_SUM || id == FN_MEAN;
}

struct stream_walk {
	bool (*is_streamed)(void *ctx, const char *series);
	void (*need)(void *ctx, const char *series, const char *column, int fn);
	void *ctx;
};

static bool walk_streamable(const struct stream_walk *w, const struct node *n)
{
	if (!n)
		return true;
	switch (n->kind) {
	case N_NUM:
	case N_STR:
		return true;
	case N_NAME:
		return !w->is_streamed(w->ctx, n->str);
	case N_POST:
		/* a streamed series named anywhere in a chain, outside the
		 * argument of an aggregation that streams: its rows are
		 * needed */
		if (n->a->kind == N_NAME && w->is_streamed(w->ctx, n->a->str))
			return false;
		for (size_t i = 0; i < n->nsteps; i++)
			if (w->is_streamed(w->ctx, n->steps[i].name))
				return false;
		return walk_streamable(w, n->a);
	case N_CALL:
		if (is_aggregate(n->fn->id) && n->nargs >= 1) {
			const struct node *a = n->args[0];
			if (a->kind == N_POST && a->a->kind == N_NAME && a->nsteps == 1 &&
			    !a->steps[0].lookup && w->is_streamed(w->ctx, a->a->str)) {
				if (!agg_streams(n->fn->id))
					return false;
				w->need(w->ctx, a->a->str, a->steps[0].name, (int)n->fn->id);
				for (size_t i = 1; i < n->nargs; i++)
					if (!walk_streamable(w, n->args[i]))
						return false;
				return true;
			}
		}
		for (size_t i = 0; i < n->nargs; i++)
			if (!walk_streamable(w, n->args[i]))
				return false;
		return true;
	case N_NEG:
	case N_NOT:
		return walk_streamable(w, n->a);
	case N_AND:
	case N_OR:
	case N_BIN:
		return walk_streamable(w, n->a) && walk_streamable(w, n->b);
	}
	return false;
}

bool expr_streamable(const struct expr *e, bool (*is_streamed)(void *ctx, const char *series),
		     void (*need)(void *ctx, const char *series, const char *column, int fn),
		     void *ctx)
{
	struct stream_walk w = {is_streamed, need, ctx};
	return walk_streamable(&w, e->root);
}

/* The aggregations: one value from a list, skipping missing cells. */
static bool eval_aggregate(struct ctx *c, const struct node *n, struct ref *out)
{
	const struct func *fn = n->fn;
	const struct node *arg = n->args[0];
	struct ref list;
	if (!eval_value(c, arg, &list))
		return false;
	if (list.v.kind != EVAL_LIST) {
		err(c, arg->off, arg->len,
		    "%s needs a list (a series column such as train.loss), but %.*s is %s",
		    fn->name, SRC(c, arg->off, arg->len), kind_word(list.v.kind));
		eval_clear(&list.v);
		return false;
	}
	char *inputs = NULL;
	inputs_from(c, &inputs, arg, &list);

	double p = 50;
	if (fn->id == FN_PERCENTILE) {
		const struct node *parg = n->args[1];
		struct ref pr;
		if (!eval_one(c, parg, &pr)) {
			free(inputs);
			return false;
		}
		if (pr.v.kind != EVAL_NUMBER || pr.v.num < 0 || pr.v.num > 100) {
			if (pr.v.kind == EVAL_NUMBER) {
				struct buf num = BUF_INIT;
				number_put(&num, pr.v.num);
				err(c, parg->off, parg->len,
				    "percentile needs p from 0 to 100, found %s", buf_data(&num));
				buf_free(&num);
			} else {
				err(c, parg->off, parg->len,
				    "percentile needs a number p from 0 to 100, but %.*s is %s",
				    SRC(c, parg->off, parg->len), kind_word(pr.v.kind));
			}
			eval_clear(&pr.v);
			free(inputs);
			return false;
		}
		inputs_from(c, &inputs, parg, &pr);
		p = pr.v.num;
		eval_clear(&pr.v);
	}

	const struct series *s = list.v.series;
	size_t col = list.v.column, rows = series_row_count(s);
	/* A series whose rows went by without being kept: what the loop
	 * below would have kept, kept as they passed. */
	const struct expr_agg *ag =
		c->sc->streamed ? c->sc->streamed(c->sc->streamed_ctx, s, col, (int)fn->id) : NULL;
	bool sorted = fn->id == FN_MEDIAN || fn->id == FN_PERCENTILE;
	assert(!ag || (!sorted && fn->id != FN_STD));
	struct item *items = sorted ? xmalloc((rows ? rows : 1) * sizeof *items) : NULL;
	struct expr_agg_loop a = {0, 0, 0, 0, 0, 0, 0, 0, true};
	struct datum dt, picked = {DATUM_MISSING, 0, NULL, 0, 0};
	/* first and last take one cell (the first or last one that is not
	 * missing) as it is, text and all: the others are not read (a
	 * training log's final_step looks at one row of millions). */
	bool one = fn->id == FN_FIRST || fn->id == FN_LAST;
	for (size_t k = 0; !ag && one && k < rows && a.n_ok == 0; k++) {
		size_t r = fn->id == FN_FIRST ? k : rows - 1 - k;
		series_cell(s, r, col, &dt);
		if (dt.kind != DATUM_MISSING) {
			a.first = a.last = r;
			a.n_ok = 1;
		}
	}
	for (size_t r = 0; !ag && !one && r < rows; r++) {
		int dec;
		bool shortest = series_cell_number(s, r, col, &dt, &dec);
		if (dt.kind == DATUM_MISSING)
			continue;
		if (!agg_step(&a, fn->id, &dt, shortest, dec, r)) {
			numbers_error(c, n, &dt, list.run);
			free(items);
			free(inputs);
			return false;
		}
		if (sorted) {
			items[a.n_ok - 1].num = dt.num;
			items[a.n_ok - 1].row = r;
		}
	}
	/* read whole: what it brought in of a mapped store goes (a
	 * cell read below maps its page again) */
	if (!ag && !one)
		series_drop_pages(s, col);
	if (ag) {
		if (ag->bad) {
			numbers_error(c, n, &ag->bad_cell, list.run);
			free(inputs);
			return false;
		}
		rows = ag->rows;
		a = ag->loop;
		picked = ag->pick;
	} else if (a.n_ok && (one || fn->id == FN_MIN || fn->id == FN_MAX)) {
		series_cell(s, fn->id == FN_FIRST ? a.first : fn->id == FN_LAST ? a.last : a.best,
			    col, &picked);
	}
	double sum = a.sum + a.comp;
	size_t n_ok = a.n_ok;
	int maxdec = a.maxdec;
	bool dec_all = a.dec_all;

	if (fn->id == FN_COUNT) {
		set_computed(out, EVAL_NUMBER, inputs);
		out->v.num = (double)n_ok;
		set_decimals(&out->v, 0);
	} else if (fn->id == FN_SUM) {
		set_computed(out, EVAL_NUMBER, inputs);
		out->v.num = sum;
		if (dec_all)
			set_decimals(&out->v, maxdec);
	} else if (n_ok == 0) {
		/* Nothing to take the mean (or first, or max) of. */
		set_computed(out, EVAL_MISSING, inputs);
		struct buf why = BUF_INIT;
		buf_printf(&why, "%s of %.*s: ", fn->name, SRC(c, arg->off, arg->len));
		if (rows == 0)
			buf_puts(&why, "no rows");
		else
			buf_printf(&why, "no values in its %zu row%s", rows, rows == 1 ? "" : "s");
		out->v.why = buf_detach(&why);
	} else if (fn->id == FN_FIRST || fn->id == FN_LAST || fn->id == FN_MIN ||
		   fn->id == FN_MAX) {
		free(inputs);
		datum_to_ref(&picked, list.run, out);
	} else if (fn->id == FN_MEAN) {
		set_computed(out, EVAL_NUMBER, inputs);
		out->v.num = sum / (double)n_ok;
	} else if (fn->id == FN_STD) {
		/* The sample standard deviation (n - 1), as pandas and
		 * spreadsheets give it: one value has none. */
		if (n_ok < 2) {
			set_computed(out, EVAL_MISSING, inputs);
			struct buf why = BUF_INIT;
			buf_printf(&why, "std of %.*s: it needs two values and has one",
				   SRC(c, arg->off, arg->len));
			out->v.why = buf_detach(&why);
		} else {
			double mean = sum / (double)n_ok, ss = 0;
			for (size_t r = 0; r < rows; r++) {
				series_cell(s, r, col, &dt);
				if (dt.kind == DATUM_NUMBER)
					ss += (dt.num - mean) * (dt.num - mean);
			}
			set_computed(out, EVAL_NUMBER, inputs);
			out->v.num = sqrt(ss / (double)(n_ok - 1));
		}
	} else {
		qsort(items, n_ok, sizeof *items, item_cmp);
		percentile_of(&list, items, n_ok, p, inputs, out);
	}
	/* A mean (a standard deviation, an interpolated percentile) is
	 * known a little better than its numbers: one decimal more, and at
	 * least three significant digits (the mean of 1 and 2 is 1.5). */
	if (out->v.kind == EVAL_NUMBER && !out->v.text && !out->v.dec_known && dec_all) {
		int d = decimals_for(out->v.num, 3);
		set_decimals(&out->v, maxdec + 1 > d ? maxdec + 1 : d);
	}
	free(items);
	return true;
}

/* round(x, n) to n decimals (n may be negative: round(1234, -2) is
 * 1200).  Decimals go through printf, which rounds the exact binary
 * value with ties to even, as the :.2f format spec and Python do. */
static double round_to(double x, int digits)
{
	if (!isfinite(x))
		return x;
	if (digits < 0) {
		double f = pow(10, -digits);
		return round(x / f) * f;
	}
	char buf[512];
	snprintf(buf, sizeof buf, "%.*f", digits, x);
	return strtod(buf, NULL);
}

static bool eval_math(struct ctx *c, const struct node *n, struct ref *out)
{
	const struct func *fn = n->fn;
	const struct node *arg = n->args[0];
	struct ref x;
	if (!eval_one(c, arg, &x))
		return false;
	if (x.v.kind != EVAL_NUMBER && x.v.kind != EVAL_MISSING) {
		err(c, arg->off, arg->len, "%s needs a number, but %.*s is %s", fn->name,
		    SRC(c, arg->off, arg->len), kind_word(x.v.kind));
		eval_clear(&x.v);
		return false;
	}
	char *inputs = NULL;
	inputs_from(c, &inputs, arg, &x);
	int digits = 0;
	if (n->nargs == 2) {
		const struct node *narg = n->args[1];
		struct ref nd;
		if (!eval_one(c, narg, &nd)) {
			eval_clear(&x.v);
			free(inputs);
			return false;
		}
		if (nd.v.kind != EVAL_NUMBER || nd.v.num != floor(nd.v.num) || nd.v.num < -15 ||
		    nd.v.num > 15) {
			err(c, narg->off, narg->len,
			    "round needs a whole number of digits from -15 to 15, but %.*s is %s",
			    SRC(c, narg->off, narg->len),
			    nd.v.kind == EVAL_NUMBER ? "not" : kind_word(nd.v.kind));
			eval_clear(&nd.v);
			eval_clear(&x.v);
			free(inputs);
			return false;
		}
		inputs_from(c, &inputs, narg, &nd);
		digits = (int)nd.v.num;
		eval_clear(&nd.v);
	}
	set_computed(out, x.v.kind, inputs);
	if (x.v.kind == EVAL_NUMBER)
		out->v.num = fn->id == FN_ABS ? fabs(x.v.num) : round_to(x.v.num, digits);
	int dec;
	if (fn->id == FN_ROUND)
		set_decimals(&out->v, digits > 0 ? digits : 0);
	else if (decimals_of(&x.v, &dec))
		set_decimals(&out->v, dec);
	if (x.v.why)
		out->v.why = xstrdup(x.v.why);
	eval_clear(&x.v);
	return true;
}

static bool eval_ref(struct ctx *c, const struct node *n, struct ref *out)
{
	ref_init(out);
	switch (n->kind) {
	case N_NUM: {
		out->v.kind = EVAL_NUMBER;
		out->v.num = n->num;
		int dec;
		if (text_decimals(c->e->text + n->off, n->len, n->num, &dec))
			set_decimals(&out->v, dec);
		return true;
	}
	case N_STR:
		/* A copy: the result may outlive the expression. */
		out->v.kind = EVAL_STRING;
		out->v.owned = xmalloc(n->slen + 1);
		memcpy(out->v.owned, n->str, n->slen + 1);
		out->v.text = out->v.owned;
		out->v.len = n->slen;
		return true;
	case N_NAME:
	case N_POST:
		return eval_chain(c, n, out);
	case N_CALL:
		if (n->fn->id == FN_ABS || n->fn->id == FN_ROUND)
			return eval_math(c, n, out);
		return eval_aggregate(c, n, out);
	case N_NEG:
		return eval_neg(c, n, out);
	case N_NOT: {
		struct ref a;
		return eval_one(c, n->a, &a) && eval_logic(c, n, &a, out);
	}
	case N_AND:
	case N_OR:
	case N_BIN:
		return eval_chain_ops(c, n, out);
	}
	assert(0);
	return false;
}

static const struct scope no_scope;

/* expr_eval(), and expr_eval_one() when `one` (a list is an error). */
static bool eval_top(const struct expr *e, const struct scope *scope, bool one,
		     struct eval *out, struct diag *d)
{
	struct ctx c = {e, scope ? scope : &no_scope, d, false, false};
	struct ref r;
	memset(out, 0, sizeof *out);
	out->kind = EVAL_MISSING;
	if (!(one ? eval_one(&c, e->root, &r) : eval_value(&c, e->root, &r)))
		return false;
	*out = r.v;
	return true;
}

bool expr_eval(const struct expr *e, const struct scope *scope, struct eval *out, struct diag *d)
{
	return eval_top(e, scope, false, out, d);
}

bool expr_eval_one(const struct expr *e, const struct scope *scope, struct eval *out,
		   struct diag *d)
{
	return eval_top(e, scope, true, out, d);
}

bool expr_eval_series(const struct expr *e, const struct scope *scope,
		      const struct series **series, const struct run **run, struct diag *d)
{
	struct ctx c = {e, scope ? scope : &no_scope, d, true, false};
	struct ref r;
	if (!eval_ref(&c, e->root, &r))
		return false;
	if (r.kind != REF_SERIES) {
		err(&c, e->root->off, e->root->len, "%.*s is %s, not a series",
		    SRC(&c, e->root->off, e->root->len), ref_word(&r));
		eval_clear(&r.v);
		return false;
	}
	*series = r.series;
	if (run)
		*run = r.run;
	return true;
}
