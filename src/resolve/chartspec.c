/* chartspec.c: the {chart} directive (SPEC section 6): a chart's body
 * read into a struct chart (draw/chart.h), its values evaluated in each
 * run, drawn into the report's figures/ and kept in the result
 * (directive.h) for the page (render/html.c) and the PDF.  Large
 * because one concept has four shapes: line, scatter, bar and roofline
 * read their series differently, and every key is checked at its
 * place. */
#include "resolve/directive.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "memoize.h"
#include "data/cache.h"
#include "data/keys.h"
#include "draw/chart.h"
#include "data/run.h"
#include "base/util.h"

static const char *const chart_keys[] = {
	"type",   "title",  "caption", "series", "x",      "y",      "legend",     "x_label",
	"y_label", "x_log", "y_log",   "x_min",  "x_max",  "y_min",  "y_max",      "width",
	"height", "label",  "peak",    "bandwidths", "points", "sort",       NULL,
};

static const char *const chart_types[] = {"line", "bar", "scatter", "roofline", NULL};

/* Parses and evaluates the expression scalar v in scope into *out; false
 * after an error at v. */
static bool chart_eval(struct directive_ctx *c, const struct value *v, const struct scope *sc,
		       bool list, struct eval *out)
{
	if (!is_text(v)) {
		bad_value(c->d, v, "the value", "an expression");
		return false;
	}
	struct expr *e = expr_parse(v->text, v->len, scalar_at(v, 0, 0), c->d);
	if (!e)
		return false;
	bool ok = list ? expr_eval(e, sc, out, c->d) : expr_eval_one(e, sc, out, c->d);
	expr_free(e);
	return ok;
}

/* A number from the scalar v (an expression allowed); false after an
 * error at v. */
static bool chart_number(struct directive_ctx *c, const struct value *v, const char *key,
			 double *out)
{
	if (v->kind == VALUE_NUMBER) {
		*out = v->number;
		return true;
	}
	struct eval ev;
	if (!chart_eval(c, v, ctx_scope(c), false, &ev))
		return false;
	bool ok = ev.kind == EVAL_NUMBER;
	if (ok)
		*out = ev.num;
	else
		diag_error(c->d, v->loc, "%s must give a number, not %s", key,
			   ev.kind == EVAL_MISSING ? "a missing value" : "text");
	eval_clear(&ev);
	return ok;
}

/* The runs a chart's series: names: a run set, a run, or a list of them.
 * Where refs is not NULL, an item may also name a series of a run
 * (bench.metis): (*refs)[i] is then that text, and runs[i] its run;
 * NULL for a whole run. */
static const struct run **chart_runs(struct directive_ctx *c, const struct value *v, size_t *n,
				     const char ***refs)
{
	const struct run **runs = NULL;
	*n = 0;
	if (refs)
		*refs = NULL;
	if (v->kind == VALUE_LIST && v->count == 0) {
		diag_error(c->d, v->loc, "series names no runs: give a run set or a list of runs");
		return NULL;
	}
	const struct value *const *items = v->kind == VALUE_LIST ? (const struct value *const *)v->items
								  : &v;
	size_t count = v->kind == VALUE_LIST ? v->count : 1;
	for (size_t i = 0; i < count; i++) {
		const struct value *it = items[i];
		if (!is_text(it)) {
			bad_value(c->d, it, "series", "a run, a run set, or a list of them");
			continue;
		}
		long set = find_set(c, it->text);
		const struct run *one = set < 0 ? find_run(c, it->text) : NULL;
		const char *ref = NULL;
		if (set < 0 && !one && refs && strchr(it->text, '.')) {
			/* a series of a run: x and y then name its columns */
			struct expr *e = expr_parse(it->text, it->len, scalar_at(it, 0, 0), c->d);
			const struct series *s = NULL;
			if (e && expr_eval_series(e, ctx_scope(c), &s, &one, c->d))
				ref = it->text;
			expr_free(e);
			if (!ref)
				continue;
		} else if (set < 0 && !one) {
			unknown_run(c, it->loc, it->text, true);
			continue;
		}
		size_t add = set >= 0 ? c->set_counts[set] : 1;
		runs = xrealloc(runs, (*n + add) * sizeof *runs);
		if (refs)
			*refs = xrealloc(*refs, (*n + add) * sizeof **refs);
		for (size_t k = 0; k < add; k++) {
			if (refs)
				(*refs)[*n] = ref;
			runs[(*n)++] = set >= 0 ? c->set_runs[set][k] : one;
		}
	}
	return runs;
}

struct keyed_run {
	const struct run *run;
	int rank;   /* 0 a number, 1 text, 2 missing: numbers first, missing last */
	double key;
	char *text;
	size_t at;
	bool desc;
};

/* As a table sorts: numbers by value, text bytewise, missing last,
 * equal keys in their first order. */
static int keyed_cmp(const void *pa, const void *pb)
{
	const struct keyed_run *a = pa, *b = pb;
	int c = 0;
	if (a->rank != b->rank)
		return a->rank - b->rank;
	if (a->rank == 0 && a->key != b->key)
		c = a->key < b->key ? -1 : 1;
	else if (a->rank == 1)
		c = strcmp(a->text, b->text);
	if (c)
		return a->desc ? -c : c;
	return a->at < b->at ? -1 : a->at > b->at;
}

/* Orders a chart's runs by the `sort` expression ('-' first for
 * descending): a run set comes sorted by path, which puts bs1024 before
 * bs512. */
static bool chart_sort(struct directive_ctx *c, const struct value *sv, const struct run **runs,
		       size_t n)
{
	if (!sv)
		return true;
	if (!is_text(sv)) {
		bad_value(c->d, sv, "sort", "an expression, with '-' first for descending");
		return false;
	}
	bool desc = sv->text[0] == '-';
	struct expr *e = expr_parse(sv->text + desc, sv->len - desc, scalar_at(sv, desc, 0), c->d);
	if (!e)
		return false;
	struct keyed_run *k = xcalloc(n ? n : 1, sizeof *k);
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++) {
		struct scope sc = *ctx_scope(c);
		sc.run = runs[i];
		struct eval ev;
		ok = expr_eval_one(e, &sc, &ev, c->d);
		k[i] = (struct keyed_run){.run = runs[i], .rank = 2, .at = i, .desc = desc};
		if (ok && ev.kind == EVAL_NUMBER) {
			k[i].rank = 0;
			k[i].key = ev.num;
		} else if (ok && ev.text) {
			k[i].rank = 1;
			k[i].text = xstrndup(ev.text, ev.len);
		}
		if (ok)
			eval_clear(&ev);
	}
	if (ok) {
		qsort(k, n, sizeof *k, keyed_cmp);
		for (size_t i = 0; i < n; i++)
			runs[i] = k[i].run;
	}
	for (size_t i = 0; i < n; i++)
		free(k[i].text);
	free(k);
	expr_free(e);
	return ok;
}

/* The numbers of a column (an EVAL_LIST) from row `from` on, or one
 * number; missing values are NaN (left out with their x by the caller). */
static double *eval_numbers(const struct eval *ev, size_t from, size_t *n)
{
	if (ev->kind == EVAL_NUMBER) {
		double *v = xmalloc(sizeof *v);
		v[0] = ev->num;
		*n = 1;
		return v;
	}
	*n = 0;
	if (ev->kind != EVAL_LIST || !ev->series)
		return NULL;
	size_t rows = series_row_count(ev->series);
	from = from < rows ? from : rows;
	double *v = xcalloc(rows - from ? rows - from : 1, sizeof *v);
	series_numbers(ev->series, ev->column, from, rows, v);
	/* the column is in v now: its store's pages go */
	if (!from)
		series_drop_pages(ev->series, ev->column);
	*n = rows - from;
	return v;
}

/* The legend of a run: the template with each {{ expr }} evaluated in
 * the run, or the run's name. */
static char *chart_legend(struct directive_ctx *c, const struct value *tmpl, const struct run *r)
{
	if (!tmpl)
		return xstrdup(run_name(r));
	struct scope sc = *ctx_scope(c);
	sc.run = r;
	struct buf b = BUF_INIT;
	const char *p = tmpl->text, *end = tmpl->text + tmpl->len;
	while (p < end) {
		const char *open = strstr(p, "{{");
		const char *close = open ? strstr(open + 2, "}}") : NULL;
		if (!open || !close) {
			buf_put(&b, p, (size_t)(end - p));
			break;
		}
		buf_put(&b, p, (size_t)(open - p));
		struct expr *e = expr_parse(open + 2, (size_t)(close - open - 2),
					    scalar_at(tmpl, (size_t)(open + 2 - tmpl->text), 0), c->d);
		struct eval ev;
		if (e && expr_eval_one(e, &sc, &ev, c->d)) {
			if (ev.text)
				buf_put(&b, ev.text, ev.len);
			else if (ev.kind == EVAL_NUMBER)
				number_put_short(&b, ev.num);
			eval_clear(&ev);
		}
		expr_free(e);
		p = close + 2;
	}
	return buf_detach(&b);
}

/* Whether a chart of n series has a legend: `legend: true` or a
 * template asks for one, `legend: false` leaves it out; unsaid, two
 * series or more have one and a single series none (the axis and the
 * caption name it). */
static bool legend_shown(const struct value *body, size_t n)
{
	const struct value *lg = value_get(body, "legend");
	if (lg && lg->kind == VALUE_BOOL)
		return lg->boolean;
	return lg || n > 1;
}

/* An axis title from an expression that is a name (train.loss gives
 * "loss", batch_size "batch_size"); NULL for anything else. */
static char *name_of(const struct value *v)
{
	if (!v || !is_text(v) || v->len == 0)
		return NULL;
	const char *start = v->text;
	for (size_t i = 0; i < v->len; i++) {
		char ch = v->text[i];
		bool letter = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
		bool digit = ch >= '0' && ch <= '9';
		if (ch == '.' && i > 0 && i + 1 < v->len && v->text[i - 1] != '.') {
			start = v->text + i + 1;
			continue;
		}
		if (!letter && !(digit && v->text + i > start))
			return NULL;
	}
	return xstrndup(start, v->len - (size_t)(start - v->text));
}

/* x or y of a line or scatter: an expression in the run, or with a
 * series reference (bench.metis) the column v names in that series. */
static bool chart_column(struct directive_ctx *c, const struct value *v, const char *ref,
			 const struct scope *sc, struct eval *out)
{
	if (!ref)
		return chart_eval(c, v, sc, true, out);
	if (!is_text(v)) {
		bad_value(c->d, v, "the value", "a column of the series");
		return false;
	}
	/* the column is checked here, so that a wrong one is reported at
	 * its own place; then "ref.column" gives the column's values */
	const struct series *s = NULL;
	struct expr *re = expr_parse(ref, strlen(ref), scalar_at(v, 0, 0), c->d);
	bool ok = re && expr_eval_series(re, sc, &s, NULL, c->d);
	expr_free(re);
	if (!ok)
		return false;
	if (series_column_index(s, v->text) < 0) {
		size_t n = series_column_count(s);
		const char **cols = xcalloc(n + 1, sizeof *cols);
		for (size_t i = 0; i < n; i++)
			cols[i] = series_column(s, i);
		const char *near = closest_name(v->text, cols);
		struct buf all = BUF_INIT;
		buf_put_names(&all, cols);
		if (near)
			diag_error(c->d, v->loc, "%s has no column '%s' (did you mean '%s'?)", ref,
				   v->text, near);
		else
			diag_error(c->d, v->loc, "%s has no column '%s' (its columns: %s)", ref, v->text,
				   buf_data(&all));
		buf_free(&all);
		free(cols);
		return false;
	}
	char *text = xasprintf("%s.%s", ref, v->text);
	struct expr *e = expr_parse(text, strlen(text), scalar_at(v, 0, 0), c->d);
	ok = e && expr_eval(e, sc, out, c->d);
	expr_free(e);
	free(text);
	return ok;
}

static void series_push(struct chart *ch, char *label, double *x, double *y, size_t n)
{
	ch->series = xrealloc(ch->series, (ch->nseries + 1) * sizeof *ch->series);
	ch->series[ch->nseries++] = (struct chart_series){.label = label, .x = x, .y = y, .n = n};
}

/* line and scatter: one series per run, x and y columns of it; a
 * series whose first rows are a store's carried through cs (from its
 * new rows when cs has its drawing). */
static bool chart_xy(struct directive_ctx *c, struct chart *ch, const struct value *body,
		     struct chart_carries *cs)
{
	const struct value *sv = value_get(body, "series"), *xv = value_get(body, "x"),
			   *yv = value_get(body, "y");
	if (!sv || !xv || !yv) {
		diag_error(c->d, body->loc, "a %s chart needs series, x and y",
			   ch->type == CHART_LINE ? "line" : "scatter");
		return false;
	}
	size_t nruns;
	const char **refs = NULL;
	const struct run **runs = chart_runs(c, sv, &nruns, &refs);
	bool has_ref = false;
	for (size_t i = 0; i < nruns; i++)
		has_ref = has_ref || refs[i];
	/* sorting moves runs; series references keep the order written */
	bool ok = runs != NULL &&
		  (has_ref || chart_sort(c, value_get(body, "sort"), runs, nruns));
	for (size_t i = 0; ok && i < nruns; i++) {
		struct scope sc = *ctx_scope(c);
		sc.run = runs[i];
		struct eval ex, ey;
		if (!chart_column(c, xv, refs[i], &sc, &ex)) {
			ok = false;
			break;
		}
		if (!chart_column(c, yv, refs[i], &sc, &ey)) {
			eval_clear(&ex);
			ok = false;
			break;
		}
		if (ex.kind == EVAL_STRING || ey.kind == EVAL_STRING) {
			const struct value *bad = ex.kind == EVAL_STRING ? xv : yv;
			diag_error(c->d, bad->loc, "%s gives text in run '%s': a chart needs numbers",
				   bad == xv ? "x" : "y", run_name(runs[i]));
			eval_clear(&ex);
			eval_clear(&ey);
			ok = false;
			break;
		}
		struct series_carry *sk = chartcarry_get(cs, i, &ex, &ey);
		size_t from = sk && sk->resumed ? sk->base : 0, nx, ny;
		double *x = eval_numbers(&ex, from, &nx), *y = eval_numbers(&ey, from, &ny);
		eval_clear(&ex);
		eval_clear(&ey);
		if (nx != ny) {
			diag_error(c->d, yv->loc, "x has %zu values and y %zu for run '%s': they must "
						  "pair up (take both from one series)",
				   nx, ny, run_name(runs[i]));
			free(x);
			free(y);
			ok = false;
			break;
		}
		/* missing values drop their point; those of the store's rows
		 * are what a carry covers */
		size_t k = 0, kbase = 0, carried = from ? sk->points : 0;
		for (size_t j = 0; j < nx; j++) {
			if (!from && sk && j == sk->base)
				kbase = k;
			if (!isnan(x[j]) && !isnan(y[j]))
				x[k] = x[j], y[k] = y[j], k++;
		}
		if (!from && sk && nx <= sk->base)
			kbase = k;
		if (k + carried == 0) {
			diag_error(c->d, sv->kind == VALUE_LIST ? xv->loc : sv->loc,
				   "run '%s' gives no points for x and y (its values are empty or "
				   "missing): leave it out of series",
				   run_name(runs[i]));
			ok = false;
		}
		for (size_t j = 0; j < k && ok; j++) {
			bool bad_x = ch->x_log && x[j] <= 0, bad_y = ch->y_log && y[j] <= 0;
			if (bad_x || bad_y) {
				struct buf num = BUF_INIT;
				number_put_short(&num, bad_x ? x[j] : y[j]);
				diag_error(c->d, (bad_x ? xv : yv)->loc,
					   "%s is %s in run '%s', which a log axis cannot show (%s_log: "
					   "true needs values above 0)",
					   bad_x ? "x" : "y", buf_data(&num), run_name(runs[i]),
					   bad_x ? "x" : "y");
				buf_free(&num);
				ok = false;
			}
		}
		const struct value *lg = value_get(body, "legend");
		if (lg && !is_text(lg))
			lg = NULL;
		/* a series reference is named by its last part: bench.metis is
		 * "metis"; one series has no legend unless asked */
		char *label = !legend_shown(body, nruns)   ? xstrdup("")
			      : refs[i] && !lg ? xstrdup(strrchr(refs[i], '.') + 1)
					       : chart_legend(c, lg, runs[i]);
		series_push(ch, label, x, y, k + carried);
		struct chart_series *cser = &ch->series[ch->nseries - 1];
		if (sk && from) {
			cser->carry = &sk->draw;
			cser->from = carried;
		} else if (sk && kbase) {
			sk->points = kbase;
			chart_carry_begin(&sk->draw, cser, kbase);
			cser->carry = &sk->draw;
		}
	}
	free(runs);
	free(refs);
	return ok;
}

/* bar: one category per run (named by x, or the run's name); y is one
 * expression (one bar each) or a map legend -> expression (a group of
 * bars each). */
static bool chart_bars(struct directive_ctx *c, struct chart *ch, const struct value *body)
{
	const struct value *sv = value_get(body, "series"), *xv = value_get(body, "x"),
			   *yv = value_get(body, "y");
	if (!sv || !yv) {
		diag_error(c->d, body->loc, "a bar chart needs series (its runs) and y");
		return false;
	}
	size_t nruns;
	const struct run **runs = chart_runs(c, sv, &nruns, NULL);
	if (!runs)
		return false;
	if (!chart_sort(c, value_get(body, "sort"), runs, nruns)) {
		free(runs);
		return false;
	}
	bool grouped = yv->kind == VALUE_MAP;
	size_t nbars = grouped ? yv->count : 1;
	const struct value *lg = value_get(body, "legend");
	bool shown = legend_shown(body, nbars);
	if (lg && is_text(lg) && strstr(lg->text, "{{")) {
		diag_error(c->d, lg->loc,
			   "a bar chart's legend names its bars, not its runs: the runs are the "
			   "categories, named by x (legend takes plain text here)");
		free(runs);
		return false;
	}
	ch->categories = xcalloc(nruns, sizeof *ch->categories);
	ch->ncategories = nruns;
	for (size_t b = 0; b < nbars; b++) {
		/* one bar per run needs no legend, unless asked: then the
		 * text given, or with `legend: true` y's name */
		char *label = !shown		? xstrdup("")
			      : grouped	? xstrdup(yv->keys[b])
			      : lg && is_text(lg) ? xstrdup(lg->text)
						    : name_of(yv);
		if (!label)
			label = xstrdup(is_text(yv) ? yv->text : "");
		series_push(ch, label, NULL,
			    xcalloc(nruns, sizeof(double)), nruns);
	}
	bool ok = true;
	for (size_t i = 0; i < nruns; i++) {
		struct scope sc = *ctx_scope(c);
		sc.run = runs[i];
		if (xv) {
			struct eval ev;
			if (chart_eval(c, xv, &sc, false, &ev)) {
				struct buf t = BUF_INIT;
				if (ev.text)
					buf_put(&t, ev.text, ev.len);
				else if (ev.kind == EVAL_NUMBER)
					number_put_short(&t, ev.num);
				ch->categories[i] = buf_detach(&t);
				eval_clear(&ev);
			} else {
				ok = false;
			}
		}
		if (!ch->categories[i])
			ch->categories[i] = xstrdup(run_name(runs[i]));
		for (size_t b = 0; b < nbars; b++) {
			const struct value *e = grouped ? yv->items[b] : yv;
			struct eval ev;
			if (!chart_eval(c, e, &sc, false, &ev)) {
				ok = false;
				continue;
			}
			if (ev.kind == EVAL_STRING && ok) {
				diag_error(c->d, e->loc,
					   "y gives text in run '%s': a bar needs a number",
					   run_name(runs[i]));
				ok = false;
			} else if (ev.kind == EVAL_STRING) {
				ok = false;
			} else if (ev.kind == EVAL_NUMBER && ch->y_log && ev.num <= 0 && ok) {
				/* one such error a chart: the rest say the same */
				struct buf num = BUF_INIT;
				number_put_short(&num, ev.num);
				diag_error(c->d, e->loc,
					   "y is %s in run '%s', which a log axis cannot show (y_log: "
					   "true needs values above 0)",
					   buf_data(&num), run_name(runs[i]));
				buf_free(&num);
				ok = false;
			}
			ch->series[b].y[i] = ev.kind == EVAL_NUMBER ? ev.num : NAN;
			eval_clear(&ev);
		}
	}
	free(runs);
	return ok;
}

static bool chart_marks(struct directive_ctx *c, const struct value *v, const char *key,
			struct chart_mark **out, size_t *n)
{
	if (v->kind != VALUE_MAP) {
		double x;
		if (!chart_number(c, v, key, &x))
			return false;
		if (!(x > 0)) {
			diag_error(c->d, v->loc, "%s must be above 0 to stand on a log-log roofline", key);
			return false;
		}
		*out = xcalloc(1, sizeof **out);
		(*out)[0] = (struct chart_mark){xstrdup(key), x};
		*n = 1;
		return true;
	}
	if (v->count == 0) {
		diag_error(c->d, v->loc, "%s is empty: name at least one (name: value)", key);
		return false;
	}
	*out = xcalloc(v->count, sizeof **out);
	bool ok = true;
	for (size_t i = 0; i < v->count; i++) {
		double x = 0;
		bool got = chart_number(c, v->items[i], key, &x);
		if (got && !(x > 0)) {
			diag_error(c->d, v->items[i]->loc,
				   "%s '%s' must be above 0 to stand on a log-log roofline", key,
				   v->keys[i]);
			got = false;
		}
		ok = got && ok;
		(*out)[(*n)++] = (struct chart_mark){xstrdup(v->keys[i]), x};
	}
	return ok;
}

static bool chart_roofline(struct directive_ctx *c, struct chart *ch, const struct value *body)
{
	const struct value *pk = value_get(body, "peak"), *bw = value_get(body, "bandwidths"),
			   *pts = value_get(body, "points");
	if (!pk || !bw) {
		diag_error(c->d, body->loc, "a roofline needs peak (FLOP/s) and bandwidths "
					    "(name: byte/s)");
		return false;
	}
	bool ok = chart_marks(c, pk, "peak", &ch->peaks, &ch->npeaks);
	if (bw->kind != VALUE_MAP) {
		bad_value(c->d, bw, "bandwidths", "a map of name: byte/s");
		ok = false;
	} else {
		ok = chart_marks(c, bw, "bandwidths", &ch->bandwidths, &ch->nbandwidths) && ok;
	}
	if (pts && pts->kind != VALUE_LIST) {
		bad_value(c->d, pts, "points", "a list of {label, intensity, performance}");
		return false;
	}
	for (size_t i = 0; pts && i < pts->count; i++) {
		const struct value *p = pts->items[i];
		const struct value *lv = value_get(p, "label"), *iv = value_get(p, "intensity"),
				   *fv = value_get(p, "performance");
		if (p->kind != VALUE_MAP || !iv || !fv) {
			diag_error(c->d, p->loc, "each point is {label, intensity, performance}");
			ok = false;
			continue;
		}
		static const char *const point_keys[] = {"label", "intensity", "performance", NULL};
		ok = keys_check(p, point_keys, "in a roofline point", NULL, c->d) && ok;
		struct chart_point cp = {xstrdup(lv && is_text(lv) ? lv->text : ""), 0, 0};
		ok = chart_number(c, iv, "intensity", &cp.intensity) && ok;
		ok = chart_number(c, fv, "performance", &cp.performance) && ok;
		ch->points = xrealloc(ch->points, (ch->npoints + 1) * sizeof *ch->points);
		ch->points[ch->npoints++] = cp;
	}
	return ok;
}

static char *opt_text(const struct value *body, const char *key)
{
	const struct value *v = value_get(body, key);
	return v && is_text(v) ? xstrdup(v->text) : NULL;
}

/* The page's other drawings of a chart: NAME.dark.svg for a dark page,
 * and for a chart wider than a phone NAME.narrow.svg and
 * NAME.narrow.dark.svg, NARROW_WIDTH pixels wide and laid out anew at
 * the same text size (docs/charts.md says why).  *w and *h are the
 * narrow size, 0 when there is none.  The PNG and PDF stay light and
 * wide. */
enum { NARROW_WIDTH = 360 };

static void narrow_size(const struct chart *ch, int *w, int *h)
{
	*w = *h = 0;
	if (ch->width <= NARROW_WIDTH + 40)
		return;
	/* taller than the wide one scaled: the texts keep their size and
	 * take a larger part of it */
	*w = NARROW_WIDTH;
	*h = (int)lround((double)ch->height * NARROW_WIDTH / ch->width * 1.75);
	*h = *h < 260 ? 260 : *h > ch->height ? ch->height : *h;
}

/* A chart's figure files, drawn before any is written: a drawing that
 * resumes a grown series may find that its carried state does not fit
 * (chart_carry.missed), and the chart is then drawn again from every
 * point. */
struct figures {
	struct buf data[6];
	const char *ext[6];
	size_t n;
};

static void figures_free(struct figures *f)
{
	for (size_t i = 0; i < f->n; i++)
		buf_free(&f->data[i]);
	f->n = 0;
}

static bool figure_add(struct figures *f, const struct chart *ch, enum chart_format fmt,
		       const char *ext, char **err)
{
	struct buf *b = &f->data[f->n];
	*b = (struct buf)BUF_INIT;
	f->ext[f->n++] = ext;
	return chart_render(ch, fmt, b, err);
}

/* figures_draw()'s drawings, all of the same series: what the first
 * finds of their points (their range, their pixel points in its
 * geometry) serves the others, which then read the points only where
 * their geometry differs (7.1 million of them over a 1 GB log, four
 * drawings of the page). */
static int figures_draw_shared(struct directive_ctx *c, const struct chart *ch,
			       struct figures *f, int *w, int *h, char **err)
{
	if (!figure_add(f, ch, CHART_SVG, "svg", err))
		return 1;
	narrow_size(ch, w, h);
	if (!c->write_figure)
		return 0;
	struct chart v = *ch; /* shares ch's arrays; only read */
	bool narrow = *w > 0;
	for (int k = 0; k < (narrow ? 3 : 1); k++) {
		static const char *const ext[] = {"dark.svg", "narrow.svg", "narrow.dark.svg"};
		v.dark = k != 1;
		v.width = k == 0 ? ch->width : *w;
		v.height = k == 0 ? ch->height : *h;
		char *e = NULL;
		bool ok = figure_add(f, &v, CHART_SVG, ext[k], &e);
		free(e);
		if (!ok)
			return 2;
	}
	static const enum chart_format more[] = {CHART_PNG, CHART_PDF};
	static const char *const ext[] = {"png", "pdf"};
	for (size_t i = 0; i < 2; i++) {
		if (!(c->figure_formats & (1u << (i + 1))))
			continue;
		char *e = NULL;
		bool ok = figure_add(f, ch, more[i], ext[i], &e);
		free(e);
		if (!ok)
			return 2;
	}
	return 0;
}

/* Draws ch's figures into f: the SVG, then (when c writes figures) the
 * page's other drawings and the PNG and PDF asked for.  0 when all
 * were drawn, 1 when the SVG could not be (*err says why), 2 when
 * another could not. */
static int figures_draw(struct directive_ctx *c, const struct chart *ch, struct figures *f,
			int *w, int *h, char **err)
{
	struct chart_shared shared = {0};
	struct chart base = *ch; /* shares ch's arrays; only read */
	base.shared = &shared;
	int got = figures_draw_shared(c, &base, f, w, h, err);
	chart_shared_clear(&shared);
	return got;
}

/* Whether a drawing of ch found a grown series' carried state not to
 * fit its geometry. */
static bool carry_missed(const struct chart *ch)
{
	for (size_t i = 0; i < ch->nseries; i++)
		if (ch->series[i].carry && ch->series[i].carry->missed)
			return true;
	return false;
}

/* Frees ch's series, to read them again. */
static void series_drop(struct chart *ch)
{
	for (size_t i = 0; i < ch->nseries; i++) {
		free(ch->series[i].label);
		free(ch->series[i].x);
		free(ch->series[i].y);
	}
	free(ch->series);
	ch->series = NULL;
	ch->nseries = 0;
}

struct cache_key chart_digest_hash(const struct chart *c, const struct chart_series *s)
{
	struct cache_hasher *h = cache_hasher_plain();
	for (size_t i = 0; c->type == CHART_BAR && i < c->ncategories; i++)
		cache_hasher_plain_bytes(h, c->categories[i], strlen(c->categories[i]) + 1);
	size_t nx = s->nx ? s->nx : s->n;
	chart_digest_points(h, s->x, s->x ? nx : 0, s->y, s->n, s->n > nx ? s->n : nx);
	return cache_hasher_end(h);
}

void chart_digest_points(struct cache_hasher *h, const double *x, size_t nx, const double *y,
			 size_t ny, size_t n)
{
	unsigned char piece[16 * 4096];
	size_t used = 0;
	for (size_t i = 0; i < n; i++) {
		if (used == sizeof piece) {
			cache_hasher_plain_bytes(h, piece, used);
			used = 0;
		}
		double xy[2] = {x && i < nx ? x[i] : NAN, i < ny ? y[i] : NAN};
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* (the bytes below, as they lie in memory here) */
		memcpy(piece + used, xy, sizeof xy);
		used += sizeof xy;
#else
		for (int k = 0; k < 2; k++) {
			uint64_t u;
			memcpy(&u, &xy[k], sizeof u);
			for (int j = 0; j < 8; j++)
				piece[used++] = (unsigned char)(u >> (8 * j) & 0xff);
		}
#endif
	}
	cache_hasher_plain_bytes(h, piece, used);
}

/* The carry of s, when it has one in cs. */
static struct series_carry *carry_of(const struct chart_carries *cs, const struct chart_series *s)
{
	for (size_t i = 0; s->carry && i < cs->n; i++)
		if (&cs->v[i]->draw == s->carry)
			return cs->v[i];
	return NULL;
}

/* What the manifest records of ch's series and roofline points, into
 * out's digest. */
static void chart_digest(const struct chart *ch, struct chart_carries *cs,
			 struct directive_result *out)
{
	out->ndigest = ch->nseries + ch->npoints;
	out->digest = xcalloc(out->ndigest + 1, sizeof *out->digest);
	for (size_t i = 0; i < ch->nseries; i++) {
		const struct chart_series *s = &ch->series[i];
		out->digest[i].name = xstrdup(s->label ? s->label : "");
		out->digest[i].points = s->n;
		out->digest[i].hash = chartcarry_digest(ch, s, carry_of(cs, s));
	}
	for (size_t i = 0; i < ch->npoints; i++) {
		/* a roofline's measured points: one series each */
		const struct chart_point *p = &ch->points[i];
		double xy[2] = {p->intensity, p->performance};
		struct chart_series one = {.x = &xy[0], .y = &xy[1], .n = 1};
		struct chart_digest *g = &out->digest[ch->nseries + i];
		g->name = xstrdup(p->label ? p->label : "");
		g->points = 1;
		g->hash = chart_digest_hash(ch, &one);
	}
}

bool directive_chart(struct directive_ctx *c, const struct value *body, int number,
		     const char *name, struct directive_result *out)
{
	bool ok = true;
	ok = keys_check(body, chart_keys, "in {chart}", NULL, c->d) && ok;
	struct chart ch = {0};
	ch.width = 720;
	ch.height = 405;
	const struct value *tv = value_get(body, "type");
	long type = -1;
	for (size_t i = 0; tv && is_text(tv) && chart_types[i]; i++)
		if (strcmp(tv->text, chart_types[i]) == 0)
			type = (long)i;
	if (!tv) {
		diag_error(c->d, body->loc, "a chart needs a type: line, bar, scatter or roofline");
		ok = false;
	} else if (type < 0) {
		const char *near = is_text(tv) ? closest_name(tv->text, chart_types) : NULL;
		if (near)
			diag_error(c->d, tv->loc, "unknown chart type '%s' (did you mean '%s'?)",
				   tv->text, near);
		else
			bad_value(c->d, tv, "type", "line, bar, scatter or roofline");
		ok = false;
	}
	static const char *const flags[] = {"x_log", "y_log"};
	for (size_t i = 0; i < 2; i++) {
		const struct value *v = value_get(body, flags[i]);
		if (v && v->kind != VALUE_BOOL) {
			bad_value(c->d, v, flags[i], "true or false");
			ok = false;
		}
	}
	ch.x_log = value_get(body, "x_log") && value_get(body, "x_log")->boolean;
	ch.y_log = value_get(body, "y_log") && value_get(body, "y_log")->boolean;
	static const char *const limits[] = {"x_min", "x_max", "y_min", "y_max"};
	bool *has[] = {&ch.has_x_min, &ch.has_x_max, &ch.has_y_min, &ch.has_y_max};
	double *lim[] = {&ch.x_min, &ch.x_max, &ch.y_min, &ch.y_max};
	for (size_t i = 0; i < 4; i++) {
		const struct value *v = value_get(body, limits[i]);
		if (v)
			ok = (*has[i] = chart_number(c, v, limits[i], lim[i])) && ok;
	}
	for (size_t i = 0; i < 4; i++) {
		const struct value *v = value_get(body, limits[i]);
		bool log = i < 2 ? ch.x_log : ch.y_log;
		if (v && *has[i] && log && *lim[i] <= 0) {
			diag_error(c->d, v->loc, "%s must be above 0 on a log axis", limits[i]);
			ok = false;
		}
	}
	for (size_t i = 0; i < 4; i += 2) {
		const struct value *hi = value_get(body, limits[i + 1]);
		if (*has[i] && *has[i + 1] && *lim[i] >= *lim[i + 1]) {
			diag_error(c->d, hi->loc, "%s must be above %s", limits[i + 1], limits[i]);
			ok = false;
		}
	}
	static const char *const sizes[] = {"width", "height"};
	int *dim[] = {&ch.width, &ch.height};
	for (size_t i = 0; i < 2; i++) {
		const struct value *v = value_get(body, sizes[i]);
		if (!v)
			continue;
		if (v->kind != VALUE_NUMBER || v->number != floor(v->number) || v->number < 120 ||
		    v->number > 4000) {
			bad_value(c->d, v, sizes[i], "a whole number of pixels from 120 to 4000");
			ok = false;
		} else {
			*dim[i] = (int)v->number;
		}
	}
	static const char *const texts[] = {"title", "caption", "legend", "x_label", "y_label"};
	for (size_t i = 0; i < ARRAY_LEN(texts); i++) {
		const struct value *v = value_get(body, texts[i]);
		bool legend = strcmp(texts[i], "legend") == 0;
		if (v && !is_text(v) && !(legend && v->kind == VALUE_BOOL)) {
			bad_value(c->d, v, texts[i], legend ? "text, true or false" : "text");
			ok = false;
		}
	}
	ch.title = opt_text(body, "title");
	ch.x_label = opt_text(body, "x_label");
	ch.y_label = opt_text(body, "y_label");
	/* unsaid, an axis is titled with its expression's name; a bar
	 * chart's y map names its bars in the legend, not the axis */
	const struct value *yv = value_get(body, "y");
	if (!value_get(body, "x_label"))
		ch.x_label = name_of(value_get(body, "x"));
	if (!value_get(body, "y_label") && !(yv && yv->kind == VALUE_MAP))
		ch.y_label = name_of(yv);
	if (ok)
		ch.type = (enum chart_type)type;
	/* from the memo, when this chart of these inputs was drawn before:
	 * nothing of its series is read */
	struct memoize_chart memo = {.on = false};
	bool hit = ok && memoize_chart_get(c, body, name, out, &memo, &ok);
	struct chart_carries cs;
	chartcarry_start(&cs, c, body);
	struct figures figs = {.n = 0};
	char *err = NULL;
	int narrow_w = 0, narrow_h = 0;
	/* twice at most: a grown series drawn from its carried points, then
	 * (when that does not fit) from every point */
	for (int again = 0; ok && !hit && again < 2; again++) {
		if (ch.type == CHART_LINE || ch.type == CHART_SCATTER)
			ok = chart_xy(c, &ch, body, &cs);
		else if (ch.type == CHART_BAR)
			ok = chart_bars(c, &ch, body);
		else
			ok = chart_roofline(c, &ch, body);
		if (!ok)
			break;
		int drawn = figures_draw(c, &ch, &figs, &narrow_w, &narrow_h, &err);
		if (drawn != 0 && carry_missed(&ch) && !cs.full) {
			figures_free(&figs);
			free(err);
			err = NULL;
			series_drop(&ch);
			chartcarry_free(&cs);
			cs.full = true;
			continue;
		}
		if (drawn == 1)
			diag_error(c->d, tv ? tv->loc : body->loc, "cannot draw this chart: %s", err);
		ok = drawn == 0;
		break;
	}
	free(err);
	for (size_t i = 0; ok && !hit && c->write_figure && i < figs.n; i++)
		ok = c->write_figure(c->figure_ctx, name, figs.ext[i], figs.data[i].data,
				     figs.data[i].len);
	figures_free(&figs);
	if (ok && !hit) {
		chart_digest(&ch, &cs, out);
		chartcarry_keep(&cs, memo.on ? &memo : NULL);
	}
	memoize_chart_end(c, &memo, ok, out);
	/* out keeps the chart for its size: a resumed series' first points
	 * are not in it, and its carry goes now */
	for (size_t i = 0; i < ch.nseries; i++) {
		ch.series[i].n -= ch.series[i].from;
		ch.series[i].from = 0;
		ch.series[i].carry = NULL;
	}
	chartcarry_free(&cs);
	if (ok) {
		const char *caption = value_get(body, "caption") && is_text(value_get(body, "caption"))
					      ? value_get(body, "caption")->text
					      : NULL;
		const struct value *lv = value_get(body, "label");
		out->kind = DIRECTIVE_CHART;
		out->ok = true;
		out->number = number;
		if (lv && is_text(lv))
			out->label = xstrdup(lv->text);
		out->figure = xstrdup(name);
		out->alt = xstrdup(ch.title ? ch.title : caption ? caption : "chart");
		if (caption)
			read_caption(c, value_get(body, "caption"), out);
		narrow_size(&ch, &narrow_w, &narrow_h);
		out->narrow_width = narrow_w;
		out->narrow_height = narrow_h;
		out->chart = ch; /* moved */
		memset(&ch, 0, sizeof ch);
	}
	chart_clear(&ch);
	return ok;
}
