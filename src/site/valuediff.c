/* valuediff.c: two manifests compared (valuediff.h).  The changes of
 * each report are collected first (inputs, values, tables, charts, in
 * the new build's order, then what was removed), then printed as text,
 * Markdown or JSON. */
#include "site/valuediff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"
#include "parse/valuetype.h"

enum ch_kind { CH_INPUT, CH_VALUE, CH_CELL, CH_SERIES, CH_TABLE, CH_CHART };
enum ch_how { CH_CHANGED, CH_ADDED, CH_REMOVED };

static const char *const kind_names[] = {"input", "value", "cell", "series", "table", "chart"};
static const char *const how_names[] = {"changed", "added", "removed"};

struct change {
	enum ch_kind kind;
	enum ch_how how;
	char *at;     /* the place in the .md (NEW's; OLD's when removed), or NULL */
	char *what;   /* "{{ a.loss :.2f }}", "Table 1 (tbl-x), row a, column loss" */
	char *old, *now;
	char *rel;    /* "+3.2%", or NULL */
	char *old_from, *new_from;
	char *detail; /* an input's: what of it changed */
};

struct report_diff {
	const char *slug, *source;
	enum ch_how how;
	struct change *c;
	size_t n;
};

static const char *str(const struct value *v, const char *key)
{
	const struct value *s = v ? value_get(v, key) : NULL;
	return s && s->kind == VALUE_STRING ? s->text : NULL;
}

static const struct value *list(const struct value *v, const char *key)
{
	const struct value *l = v ? value_get(v, key) : NULL;
	return l && l->kind == VALUE_LIST ? l : NULL;
}

static size_t count(const struct value *l)
{
	return l ? l->count : 0;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* A scalar as text: a string as is, a number as written. */
static char *scalar_text(const struct value *v)
{
	struct buf b = BUF_INIT;
	if (v)
		value_put_text(&b, v);
	return buf_detach(&b);
}

static struct change *add(struct report_diff *r, enum ch_kind kind, enum ch_how how)
{
	r->c = xrealloc(r->c, (r->n + 1) * sizeof *r->c);
	struct change *c = &r->c[r->n++];
	memset(c, 0, sizeof *c);
	c->kind = kind;
	c->how = how;
	return c;
}

/* "+3.2%": the change from a to b relative to a; NULL when a is 0. */
static char *relative(double a, double b)
{
	if (a == 0 || !isfinite(a) || !isfinite(b))
		return NULL;
	double r = (b - a) / fabs(a) * 100;
	char *s = xasprintf("%+.1f%%", r);
	if (strcmp(s + 1, "0.0%") == 0) {
		/* a change too small for one decimal still shows as one */
		free(s);
		s = xasprintf("%+.2g%%", r);
	}
	return s;
}

/* The number a whole text is, as a table cell shows one ("7.125",
 * "-3", "1e6", "2,925", "93.4%"), read as the parsers read a value
 * (number_parse()); false for anything else. */
static bool text_number(const char *s, double *out)
{
	return s && *s && number_parse(s, strlen(s), out) && isfinite(*out);
}

static char *const *sort_keys; /* for the comparators below; one thread */

/* By key, then by index: equal keys stay in document order. */
static int cmp_index(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int c = strcmp(sort_keys[a], sort_keys[b]);
	return c ? c : (a > b) - (a < b);
}

/* The indices of keys[0..n) sorted by key (and index).  Caller frees. */
static size_t *sorted_indices(char *const *keys, size_t n)
{
	size_t *idx = xcalloc(n + 1, sizeof *idx);
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	sort_keys = keys;
	if (n > 1)
		qsort(idx, n, sizeof *idx, cmp_index);
	return idx;
}

/* Keys that tell equal keys apart by occurrence: "key\x1f3".  Sorted,
 * not compared pairwise: a report may show 50,000 values. */
static char **occurrence_keys(char **keys, size_t n)
{
	char **out = xcalloc(n + 1, sizeof *out);
	size_t *idx = sorted_indices(keys, n);
	for (size_t i = 0, k = 0; i < n; i++) {
		k = i > 0 && strcmp(keys[idx[i - 1]], keys[idx[i]]) == 0 ? k + 1 : 0;
		out[idx[i]] = xasprintf("%s\x1f%zu", keys[idx[i]], k);
	}
	free(idx);
	return out;
}

static void keys_free(char **k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i]);
	free(k);
}

/* match[i]: the index in old of new's i-th key, or -1; each old key is
 * matched once.  Keys are unique on each side (occurrence_keys()), but
 * a repeated one is matched in order all the same. */
static long *match_keys(char **old, size_t nold, char **now, size_t nnew, bool **old_used)
{
	long *m = xcalloc(nnew + 1, sizeof *m);
	*old_used = xcalloc(nold + 1, sizeof **old_used);
	size_t *idx = sorted_indices(old, nold);
	for (size_t i = 0; i < nnew; i++) {
		m[i] = -1;
		size_t lo = 0, hi = nold;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (strcmp(old[idx[mid]], now[i]) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < nold && strcmp(old[idx[lo]], now[i]) == 0 && m[i] < 0; lo++)
			if (!(*old_used)[idx[lo]]) {
				m[i] = (long)idx[lo];
				(*old_used)[idx[lo]] = true;
			}
	}
	free(idx);
	return m;
}

/* --- inputs --- */

static char *short_hash(const char *h)
{
	const char *colon = h ? strchr(h, ':') : NULL;
	const char *hex = colon ? colon + 1 : h ? h : "";
	return xstrndup(hex, strlen(hex) < 12 ? strlen(hex) : 12);
}

static char *input_text(const struct value *run)
{
	char *size = scalar_text(value_get(run, "size"));
	char *h = short_hash(str(run, "hash"));
	const char *p = str(run, "parser");
	char *s = xasprintf("size %s, hash %s, parser %s", *size ? size : "?", *h ? h : "?",
			    p && *p ? p : "?");
	free(size);
	free(h);
	return s;
}

static bool same_scalar(const struct value *a, const struct value *b)
{
	char *x = scalar_text(a), *y = scalar_text(b);
	bool same = strcmp(x, y) == 0 && (a == NULL) == (b == NULL);
	free(x);
	free(y);
	return same;
}

static void put_part(struct buf *b, const char *name, const struct value *a, const struct value *c,
		     bool hash)
{
	char *x = scalar_text(a), *y = scalar_text(c);
	if (hash) {
		char *sx = short_hash(x), *sy = short_hash(y);
		free(x);
		free(y);
		x = sx;
		y = sy;
	}
	buf_printf(b, "%s%s %s → %s", b->len ? ", " : "", name, x, y);
	free(x);
	free(y);
}

static char *joined(const struct value *l)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; l && l->kind == VALUE_LIST && i < l->count; i++) {
		buf_puts(&b, i ? ", " : "");
		value_put_text(&b, l->items[i]);
	}
	if (!b.len)
		buf_puts(&b, "none");
	return buf_detach(&b);
}

/* "hosts dcc-core-46 → dcc-core-47" when the lists differ. */
static void put_list(struct buf *b, const char *name, const struct value *x, const struct value *y)
{
	char *a = joined(x), *c = joined(y);
	if (strcmp(a, c) != 0)
		buf_printf(b, "%s%s %s → %s", b->len ? ", " : "", name, a, c);
	free(a);
	free(c);
}

/* The runs of an entry, one per file (the first run that reads it). */
static size_t unique_files(const struct value *runs, const struct value ***out, char ***keys)
{
	size_t n = 0;
	*out = xcalloc(count(runs) + 1, sizeof **out);
	*keys = xcalloc(count(runs) + 1, sizeof **keys);
	for (size_t i = 0; i < count(runs); i++) {
		const char *f = str(runs->items[i], "file");
		bool seen = false;
		for (size_t j = 0; j < n && !seen; j++)
			seen = strcmp((*keys)[j], f ? f : "") == 0;
		if (seen)
			continue;
		(*out)[n] = runs->items[i];
		(*keys)[n++] = xstrdup(f ? f : "");
	}
	return n;
}

static void diff_inputs(struct report_diff *rd, const struct value *old, const struct value *now)
{
	const struct value **o, **w;
	char **ok, **wk;
	size_t no = unique_files(list(old, "runs"), &o, &ok);
	size_t nw = unique_files(list(now, "runs"), &w, &wk);
	bool *used;
	long *m = match_keys(ok, no, wk, nw, &used);
	for (size_t i = 0; i < nw; i++) {
		if (m[i] < 0) {
			struct change *c = add(rd, CH_INPUT, CH_ADDED);
			c->what = xstrdup(wk[i]);
			c->now = input_text(w[i]);
			continue;
		}
		const struct value *a = o[m[i]], *b = w[i];
		struct buf d = BUF_INIT;
		if (!same_scalar(value_get(a, "size"), value_get(b, "size")))
			put_part(&d, "size", value_get(a, "size"), value_get(b, "size"), false);
		if (!same_scalar(value_get(a, "hash"), value_get(b, "hash")))
			put_part(&d, "hash", value_get(a, "hash"), value_get(b, "hash"), true);
		if (!same_scalar(value_get(a, "parser"), value_get(b, "parser")))
			put_part(&d, "parser", value_get(a, "parser"), value_get(b, "parser"), false);
		else if (!same_scalar(value_get(a, "parser_hash"), value_get(b, "parser_hash")))
			put_part(&d, "parser definition", value_get(a, "parser_hash"),
				 value_get(b, "parser_hash"), true);
		put_list(&d, "job ids", value_get(a, "job_ids"), value_get(b, "job_ids"));
		put_list(&d, "hosts", value_get(a, "hosts"), value_get(b, "hosts"));
		if (d.len) {
			struct change *c = add(rd, CH_INPUT, CH_CHANGED);
			c->what = xstrdup(wk[i]);
			c->old = input_text(a);
			c->now = input_text(b);
			c->detail = buf_detach(&d);
		}
		buf_free(&d);
	}
	for (size_t j = 0; j < no; j++) {
		if (used[j])
			continue;
		struct change *c = add(rd, CH_INPUT, CH_REMOVED);
		c->what = xstrdup(ok[j]);
		c->old = input_text(o[j]);
	}
	free(m);
	free(used);
	free(o);
	free(w);
	keys_free(ok, no);
	keys_free(wk, nw);
}

/* --- values --- */

static char **value_keys(const struct value *vals)
{
	size_t n = count(vals);
	char **raw = xcalloc(n + 1, sizeof *raw);
	for (size_t i = 0; i < n; i++)
		raw[i] = xstrdup(str(vals->items[i], "source") ? str(vals->items[i], "source") : "");
	char **k = occurrence_keys(raw, n);
	keys_free(raw, n);
	return k;
}

static void value_change(struct change *c, const struct value *a, const struct value *b)
{
	const struct value *e = b ? b : a;
	c->at = dup_or_null(str(e, "at"));
	c->what = dup_or_null(str(e, "source"));
	c->old = a ? scalar_text(value_get(a, "text")) : NULL;
	c->now = b ? scalar_text(value_get(b, "text")) : NULL;
	c->old_from = a ? dup_or_null(str(a, "from")) : NULL;
	c->new_from = b ? dup_or_null(str(b, "from")) : NULL;
	const struct value *x = a ? value_get(a, "number") : NULL, *y = b ? value_get(b, "number") : NULL;
	if (x && y && x->kind == VALUE_NUMBER && y->kind == VALUE_NUMBER)
		c->rel = relative(x->number, y->number);
}

static void diff_values(struct report_diff *rd, const struct value *old, const struct value *now)
{
	const struct value *ov = list(old, "values"), *nv = list(now, "values");
	char **ok = value_keys(ov), **nk = value_keys(nv);
	bool *used;
	long *m = match_keys(ok, count(ov), nk, count(nv), &used);
	for (size_t i = 0; i < count(nv); i++) {
		const struct value *b = nv->items[i], *a = m[i] >= 0 ? ov->items[m[i]] : NULL;
		if (a && same_scalar(value_get(a, "text"), value_get(b, "text")))
			continue;
		value_change(add(rd, CH_VALUE, a ? CH_CHANGED : CH_ADDED), a, b);
	}
	for (size_t j = 0; j < count(ov); j++)
		if (!used[j])
			value_change(add(rd, CH_VALUE, CH_REMOVED), ov->items[j], NULL);
	free(m);
	free(used);
	keys_free(ok, count(ov));
	keys_free(nk, count(nv));
}

/* --- tables and charts --- */

/* Keys of tables or charts: the label, else "#k" among the unlabelled. */
static char **figure_keys(const struct value *l)
{
	size_t n = count(l), k = 0;
	char **raw = xcalloc(n + 1, sizeof *raw);
	for (size_t i = 0; i < n; i++) {
		const char *label = str(l->items[i], "label");
		raw[i] = label ? xstrdup(label) : xasprintf("#%zu", ++k);
	}
	return raw;
}

/* "Table 2 (tbl-x)", "Figure 1", "table tbl-x", "table 3" */
static char *figure_name(const struct value *e, const char *kind, const char *key)
{
	const struct value *num = value_get(e, "number");
	const char *label = str(e, "label");
	int n = num && num->kind == VALUE_NUMBER ? (int)num->number : 0;
	if (n > 0 && label)
		return xasprintf("%c%s %d (%s)", kind[0] - 32, kind + 1, n, label);
	if (n > 0)
		return xasprintf("%c%s %d", kind[0] - 32, kind + 1, n);
	return xasprintf("%s %s", kind, label ? label : key + 1);
}

static const char *cell(const struct value *cells, size_t row, size_t col)
{
	const struct value *r = row < count(cells) ? cells->items[row] : NULL;
	if (!r || r->kind != VALUE_LIST || col >= r->count || r->items[col]->kind != VALUE_STRING)
		return "";
	return r->items[col]->text;
}

static size_t row_len(const struct value *cells, size_t row)
{
	const struct value *r = row < count(cells) ? cells->items[row] : NULL;
	return r && r->kind == VALUE_LIST ? r->count : 0;
}

/* Keys of a table's rows (by their first cell) or columns (by their
 * header), from 1: row 0 is the header row. */
static char **line_keys(const struct value *cells, bool rows, size_t *n)
{
	*n = rows ? (count(cells) ? count(cells) - 1 : 0) : row_len(cells, 0);
	char **raw = xcalloc(*n + 1, sizeof *raw);
	for (size_t i = 0; i < *n; i++)
		raw[i] = xstrdup(rows ? cell(cells, i + 1, 0) : cell(cells, 0, i));
	char **k = occurrence_keys(raw, *n);
	keys_free(raw, *n);
	return k;
}

static char *row_text(const struct value *cells, size_t row)
{
	struct buf b = BUF_INIT;
	for (size_t c = 0; c < row_len(cells, row); c++)
		buf_printf(&b, "%s%s", c ? " | " : "", cell(cells, row, c));
	return buf_detach(&b);
}

static char *column_text(const struct value *cells, size_t col)
{
	struct buf b = BUF_INIT;
	for (size_t r = 1; r < count(cells); r++)
		buf_printf(&b, "%s%s", r > 1 ? " | " : "", cell(cells, r, col));
	return buf_detach(&b);
}

static void diff_cells(struct report_diff *rd, const char *name, const char *at,
		       const struct value *a, const struct value *b)
{
	const struct value *oc = list(a, "cells"), *nc = list(b, "cells");
	size_t nor, nnr, noc, nnc;
	char **ork = line_keys(oc, true, &nor), **nrk = line_keys(nc, true, &nnr);
	char **ock = line_keys(oc, false, &noc), **nck = line_keys(nc, false, &nnc);
	bool *rused, *cused;
	long *rm = match_keys(ork, nor, nrk, nnr, &rused);
	long *cm = match_keys(ock, noc, nck, nnc, &cused);
	for (size_t r = 0; r < nnr; r++) {
		const char *rowname = cell(nc, r + 1, 0);
		if (rm[r] < 0) {
			struct change *c = add(rd, CH_CELL, CH_ADDED);
			c->at = xstrdup(at);
			c->what = xasprintf("%s, row %s", name, rowname);
			c->now = row_text(nc, r + 1);
			continue;
		}
		for (size_t col = 0; col < nnc; col++) {
			if (cm[col] < 0)
				continue;
			const char *x = cell(oc, (size_t)rm[r] + 1, (size_t)cm[col]);
			const char *y = cell(nc, r + 1, col);
			if (strcmp(x, y) == 0)
				continue;
			struct change *c = add(rd, CH_CELL, CH_CHANGED);
			c->at = xstrdup(at);
			c->what = xasprintf("%s, row %s, column %s", name, rowname, cell(nc, 0, col));
			c->old = xstrdup(x);
			c->now = xstrdup(y);
			double dx, dy;
			if (text_number(x, &dx) && text_number(y, &dy))
				c->rel = relative(dx, dy);
		}
	}
	for (size_t r = 0; r < nor; r++) {
		if (rused[r])
			continue;
		struct change *c = add(rd, CH_CELL, CH_REMOVED);
		c->at = xstrdup(at);
		c->what = xasprintf("%s, row %s", name, cell(oc, r + 1, 0));
		c->old = row_text(oc, r + 1);
	}
	for (size_t col = 0; col < nnc; col++) {
		if (cm[col] >= 0)
			continue;
		struct change *c = add(rd, CH_CELL, CH_ADDED);
		c->at = xstrdup(at);
		c->what = xasprintf("%s, column %s", name, cell(nc, 0, col));
		c->now = column_text(nc, col);
	}
	for (size_t col = 0; col < noc; col++) {
		if (cused[col])
			continue;
		struct change *c = add(rd, CH_CELL, CH_REMOVED);
		c->at = xstrdup(at);
		c->what = xasprintf("%s, column %s", name, cell(oc, 0, col));
		c->old = column_text(oc, col);
	}
	free(rm);
	free(cm);
	free(rused);
	free(cused);
	keys_free(ork, nor);
	keys_free(nrk, nnr);
	keys_free(ock, noc);
	keys_free(nck, nnc);
}

static char *series_text(const struct value *s)
{
	char *n = scalar_text(value_get(s, "points"));
	char *h = short_hash(str(s, "hash"));
	char *t = xasprintf("%s point%s (%s)", n, strcmp(n, "1") == 0 ? "" : "s", h);
	free(n);
	free(h);
	return t;
}

/* A series as the diff names it: its legend, or its place (a chart of
 * one series has no legend). */
static char *series_title(const char *name, const struct value *s, size_t i)
{
	const char *sn = str(s, "name");
	return sn && *sn ? xasprintf("%s, series %s", name, sn)
			 : xasprintf("%s, series %zu", name, i + 1);
}

static void diff_series(struct report_diff *rd, const char *name, const char *at,
			const struct value *a, const struct value *b)
{
	const struct value *os = list(a, "series"), *ns = list(b, "series");
	char **raw = xcalloc(count(os) + count(ns) + 1, sizeof *raw);
	for (size_t i = 0; i < count(os); i++)
		raw[i] = xstrdup(str(os->items[i], "name") ? str(os->items[i], "name") : "");
	char **ok = occurrence_keys(raw, count(os));
	keys_free(raw, count(os));
	raw = xcalloc(count(ns) + 1, sizeof *raw);
	for (size_t i = 0; i < count(ns); i++)
		raw[i] = xstrdup(str(ns->items[i], "name") ? str(ns->items[i], "name") : "");
	char **nk = occurrence_keys(raw, count(ns));
	keys_free(raw, count(ns));
	bool *used;
	long *m = match_keys(ok, count(os), nk, count(ns), &used);
	for (size_t i = 0; i < count(ns); i++) {
		const struct value *y = ns->items[i], *x = m[i] >= 0 ? os->items[m[i]] : NULL;
		if (x && same_scalar(value_get(x, "points"), value_get(y, "points")) &&
		    same_scalar(value_get(x, "hash"), value_get(y, "hash")))
			continue;
		struct change *c = add(rd, CH_SERIES, x ? CH_CHANGED : CH_ADDED);
		c->at = xstrdup(at);
		c->what = series_title(name, y, i);
		c->old = x ? series_text(x) : NULL;
		c->now = series_text(y);
	}
	for (size_t j = 0; j < count(os); j++) {
		if (used[j])
			continue;
		struct change *c = add(rd, CH_SERIES, CH_REMOVED);
		c->at = xstrdup(at);
		c->what = series_title(name, os->items[j], j);
		c->old = series_text(os->items[j]);
	}
	free(m);
	free(used);
	keys_free(ok, count(os));
	keys_free(nk, count(ns));
}

static void diff_figures(struct report_diff *rd, const struct value *old, const struct value *now,
			 bool tables)
{
	const char *key = tables ? "tables" : "charts", *kind = tables ? "table" : "figure";
	const struct value *ol = list(old, key), *nl = list(now, key);
	char **ok = figure_keys(ol), **nk = figure_keys(nl);
	bool *used;
	long *m = match_keys(ok, count(ol), nk, count(nl), &used);
	enum ch_kind whole = tables ? CH_TABLE : CH_CHART;
	for (size_t i = 0; i < count(nl); i++) {
		const struct value *b = nl->items[i];
		char *name = figure_name(b, kind, nk[i]);
		const char *at = str(b, "at") ? str(b, "at") : "";
		if (m[i] < 0) {
			struct change *c = add(rd, whole, CH_ADDED);
			c->at = xstrdup(at);
			c->what = name;
			continue;
		}
		if (tables)
			diff_cells(rd, name, at, ol->items[m[i]], b);
		else
			diff_series(rd, name, at, ol->items[m[i]], b);
		free(name);
	}
	for (size_t j = 0; j < count(ol); j++) {
		if (used[j])
			continue;
		struct change *c = add(rd, whole, CH_REMOVED);
		c->at = dup_or_null(str(ol->items[j], "at"));
		c->what = figure_name(ol->items[j], kind, ok[j]);
	}
	free(m);
	free(used);
	keys_free(ok, count(ol));
	keys_free(nk, count(nl));
}

/* --- printing --- */

static void put_colour(FILE *out, const struct valuediff_opts *o, const char *sgr, const char *s)
{
	if (o->colour)
		fprintf(out, "\033[%sm%s\033[0m", sgr, s);
	else
		fputs(s, out);
}

static void text_change(FILE *out, const struct change *c, const struct valuediff_opts *o)
{
	fputs("  ", out);
	if (c->kind == CH_INPUT) {
		put_colour(out, o, "1", c->what);
		if (c->how == CH_CHANGED)
			fprintf(out, " changed: %s\n", c->detail);
		else if (c->how == CH_ADDED)
			fprintf(out, ": a new input (%s)\n", c->now);
		else
			fprintf(out, ": no longer an input (%s)\n", c->old);
		return;
	}
	if (c->at) {
		put_colour(out, o, "1", c->at);
		fputs(": ", out);
	}
	if (c->how != CH_CHANGED)
		fprintf(out, "%s ", how_names[c->how]);
	fputs(c->what, out);
	if (c->how == CH_CHANGED) {
		fputs(": ", out);
		put_colour(out, o, "31", c->old);
		fputs(" → ", out);
		put_colour(out, o, "32", c->now);
		if (c->rel)
			fprintf(out, " (%s)", c->rel);
	} else if (c->old || c->now) {
		fputs(": ", out);
		put_colour(out, o, c->how == CH_ADDED ? "32" : "31", c->how == CH_ADDED ? c->now : c->old);
	}
	fputc('\n', out);
	if (c->kind == CH_VALUE && (c->old_from || c->new_from)) {
		if (c->how == CH_CHANGED)
			fprintf(out, "      from %s → %s\n", c->old_from ? c->old_from : "nothing",
				c->new_from ? c->new_from : "nothing");
		else
			fprintf(out, "      from %s\n", c->old_from ? c->old_from : c->new_from);
	}
}

/* s in a Markdown table cell: | escaped, line breaks as spaces. */
static void md_cell(FILE *out, const char *s, bool code)
{
	if (!s || !*s)
		return;
	size_t run = 0, longest = 0;
	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	if (code) {
		for (size_t i = 0; i <= longest; i++)
			fputc('`', out);
		if (*s == '`')
			fputc(' ', out);
	}
	for (const char *p = s; *p; p++) {
		if (*p == '|')
			fputs("\\|", out);
		else if (*p == '\n' || *p == '\r')
			fputc(' ', out);
		else if (!code && strchr("\\*_<>[]`", *p))
			fprintf(out, "\\%c", *p);
		else
			fputc(*p, out);
	}
	if (code) {
		if (s[strlen(s) - 1] == '`')
			fputc(' ', out);
		for (size_t i = 0; i <= longest; i++)
			fputc('`', out);
	}
}

static void md_change(FILE *out, const struct change *c)
{
	fputs("| ", out);
	md_cell(out, c->kind == CH_INPUT ? c->what : c->at, true);
	fputs(" | ", out);
	if (c->kind == CH_INPUT)
		fputs("input", out);
	else
		md_cell(out, c->what, c->kind == CH_VALUE);
	fputs(" | ", out);
	md_cell(out, c->old, false);
	fputs(" | ", out);
	md_cell(out, c->now, false);
	fputs(" | ", out);
	if (c->how != CH_CHANGED)
		fputs(how_names[c->how], out);
	else if (c->rel)
		fputs(c->rel, out);
	else if (c->detail)
		md_cell(out, c->detail, false); /* an input: what of it changed */
	fputs(" | ", out);
	if (c->how == CH_CHANGED && (c->old_from || c->new_from)) {
		md_cell(out, c->old_from ? c->old_from : "nothing", true);
		fputs(" → ", out);
		md_cell(out, c->new_from ? c->new_from : "nothing", true);
	} else if (c->old_from || c->new_from) {
		md_cell(out, c->old_from ? c->old_from : c->new_from, true);
	}
	fputs(" |\n", out);
}

static void json_field(FILE *out, const char *key, const char *s, bool comma)
{
	fprintf(out, "%s\"%s\": ", comma ? ", " : "", key);
	if (s)
		json_put_cstr(out, s);
	else
		fputs("null", out);
}

static void json_change(FILE *out, const struct change *c, bool first)
{
	fputs(first ? "\n      {" : ",\n      {", out);
	json_field(out, "kind", kind_names[c->kind], false);
	json_field(out, "change", how_names[c->how], true);
	json_field(out, "at", c->at, true);
	json_field(out, "what", c->what, true);
	json_field(out, "old", c->old, true);
	json_field(out, "new", c->now, true);
	json_field(out, "relative", c->rel, true);
	json_field(out, "old_from", c->old_from, true);
	json_field(out, "new_from", c->new_from, true);
	json_field(out, "detail", c->detail, true);
	fputc('}', out);
}

static void change_free(struct change *c)
{
	free(c->at);
	free(c->what);
	free(c->old);
	free(c->now);
	free(c->rel);
	free(c->old_from);
	free(c->new_from);
	free(c->detail);
}

static int cmp_diff(const void *pa, const void *pb)
{
	const struct report_diff *a = pa, *b = pb;
	return strcmp(a->slug, b->slug);
}

/* One GitHub annotation: where (FILE:LINE:COL, FILE, or NULL), and
 * the message, trimmed of the text's indentation and last newline. */
static void github_notice(FILE *out, const char *where, const char *text)
{
	fputs("::notice ", out);
	if (where) {
		/* FILE[:LINE[:COL]]: the numbers from the right */
		const char *end = where + strlen(where), *nums[2] = {NULL, NULL};
		for (int k = 0; k < 2; k++) {
			const char *colon = end;
			while (colon > where && colon[-1] != ':')
				colon--;
			if (colon == where || colon == end ||
			    strspn(colon, "0123456789") != (size_t)(end - colon))
				break;
			nums[k] = colon;
			end = colon - 1;
		}
		char *file = xstrndup(where, (size_t)(end - where));
		fputs("file=", out);
		diag_put_github(out, file, true);
		free(file);
		const char *line = nums[1] ? nums[1] : nums[0], *col = nums[1] ? nums[0] : NULL;
		if (line)
			fprintf(out, ",line=%ld", strtol(line, NULL, 10));
		if (col)
			fprintf(out, ",col=%ld", strtol(col, NULL, 10));
		fputc(',', out);
	}
	fputs("title=", out);
	diag_put_github(out, "logdown: changed since the committed site", true);
	fputs("::", out);
	/* the place is the annotation's: not again in its text */
	size_t wl = where ? strlen(where) : 0;
	if (wl && strncmp(text + strspn(text, " "), where, wl) == 0 &&
	    strncmp(text + strspn(text, " ") + wl, ": ", 2) == 0)
		text += strspn(text, " ") + wl + 2;
	/* the text's lines without their indentation */
	struct buf msg = BUF_INIT;
	for (const char *p = text; *p;) {
		p += strspn(p, " ");
		size_t n = strcspn(p, "\n");
		if (msg.len)
			buf_putc(&msg, '\n');
		buf_put(&msg, p, n);
		p += n + (p[n] == '\n');
	}
	diag_put_github(out, buf_data(&msg), false);
	buf_free(&msg);
	fputc('\n', out);
}

static void print_github(FILE *out, struct report_diff *rd, size_t n,
			 const struct valuediff_opts *o)
{
	static const char *const report_how[] = {"", "a new report", "no longer built"};
	struct valuediff_opts plain = *o;
	plain.colour = false;
	for (size_t i = 0; i < n; i++) {
		const struct report_diff *r = &rd[i];
		if (r->how != CH_CHANGED) {
			char *msg = xasprintf("%s: %s", r->slug, report_how[r->how]);
			github_notice(out, r->source, msg);
			free(msg);
			continue;
		}
		for (size_t j = 0; j < r->n; j++) {
			const struct change *c = &r->c[j];
			char *text = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&text, &len);
			if (!m)
				continue;
			text_change(m, c, &plain);
			fclose(m);
			github_notice(out, c->kind == CH_INPUT ? c->what : c->at, text);
			free(text);
		}
	}
}

static void print(FILE *out, struct report_diff *rd, size_t n, size_t total, size_t nreports,
		  const struct valuediff_opts *o)
{
	if (o->format == VALUEDIFF_GITHUB) {
		print_github(out, rd, n, o);
		return;
	}
	static const char *const report_how[] = {"", "a new report", "no longer built"};
	if (o->format == VALUEDIFF_JSON) {
		fprintf(out, "{\n  \"changes\": %zu,\n  \"reports\": [", total);
		for (size_t i = 0, k = 0; i < n; i++) {
			if (!rd[i].n && rd[i].how == CH_CHANGED)
				continue;
			fprintf(out, "%s\n    {", k++ ? "," : "");
			json_field(out, "slug", rd[i].slug, false);
			json_field(out, "source", rd[i].source, true);
			json_field(out, "report", how_names[rd[i].how], true);
			fputs(", \"changes\": [", out);
			for (size_t j = 0; j < rd[i].n; j++)
				json_change(out, &rd[i].c[j], j == 0);
			fputs(rd[i].n ? "\n    ]}" : "]}", out);
		}
		fputs(nreports ? "\n  ]\n}\n" : "]\n}\n", out);
		return;
	}
	bool md = o->format == VALUEDIFF_MARKDOWN;
	if (md && !total)
		fputs("## logdown diff: no change\n", out);
	else if (md)
		fprintf(out, "## logdown diff: %zu change%s in %zu report%s\n", total,
			total == 1 ? "" : "s", nreports, nreports == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		const struct report_diff *r = &rd[i];
		if (!r->n && r->how == CH_CHANGED)
			continue;
		if (md) {
			fputs("\n### ", out);
			md_cell(out, r->slug, true);
			fputs(" (", out);
			md_cell(out, r->source, true);
			fprintf(out, ")%s%s\n", r->how != CH_CHANGED ? ": " : "", report_how[r->how]);
			if (r->n)
				fputs("\n| Where | What | Old | New | Change | Source |\n"
				      "|---|---|---|---|---|---|\n",
				      out);
			for (size_t j = 0; j < r->n; j++)
				md_change(out, &r->c[j]);
			continue;
		}
		put_colour(out, o, "1", r->slug);
		fprintf(out, " (%s)%s%s\n", r->source ? r->source : "",
			r->how != CH_CHANGED ? ": " : "", report_how[r->how]);
		for (size_t j = 0; j < r->n; j++)
			text_change(out, &r->c[j], o);
	}
	if (!md && total)
		fprintf(out, "logdown: %zu change%s in %zu report%s\n", total, total == 1 ? "" : "s",
			nreports, nreports == 1 ? "" : "s");
	else if (!md)
		fputs("logdown: no change\n", out);
}

size_t valuediff_print(FILE *out, const struct value *old, const struct value *now,
		       const struct valuediff_opts *o)
{
	const char *ov = str(old, "logdown"), *nv = str(now, "logdown");
	if (o->d && ov && nv && strcmp(ov, nv) != 0)
		diag_note(o->d, loc_line(NULL, 0),
			  "%s was built by logdown %s and %s by logdown %s: what a version "
			  "changed shows as changes",
			  o->old_name ? o->old_name : "OLD", ov, o->new_name ? o->new_name : "NEW", nv);
	const struct value *ol = list(old, "reports"), *nl = list(now, "reports");
	size_t n = 0;
	struct report_diff *rd = xcalloc(count(ol) + count(nl) + 1, sizeof *rd);
	for (size_t i = 0; i < count(nl); i++) {
		const struct value *b = nl->items[i];
		const char *slug = str(b, "slug");
		if (!slug)
			continue;
		const struct value *a = NULL;
		for (size_t j = 0; j < count(ol) && !a; j++)
			if (str(ol->items[j], "slug") && strcmp(str(ol->items[j], "slug"), slug) == 0)
				a = ol->items[j];
		struct report_diff *r = &rd[n++];
		r->slug = slug;
		r->source = str(b, "source");
		r->how = a ? CH_CHANGED : CH_ADDED;
		if (!a)
			continue;
		diff_inputs(r, a, b);
		diff_values(r, a, b);
		diff_figures(r, a, b, true);
		diff_figures(r, a, b, false);
	}
	for (size_t j = 0; j < count(ol); j++) {
		const char *slug = str(ol->items[j], "slug");
		bool there = false;
		for (size_t i = 0; slug && i < n && !there; i++)
			there = strcmp(rd[i].slug, slug) == 0;
		if (!slug || there)
			continue;
		rd[n].slug = slug;
		rd[n].source = str(ol->items[j], "source");
		rd[n++].how = CH_REMOVED;
	}
	if (n > 1)
		qsort(rd, n, sizeof *rd, cmp_diff);
	size_t total = 0, nreports = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = rd[i].how == CH_CHANGED ? rd[i].n : 1;
		total += k;
		nreports += k > 0;
	}
	print(out, rd, n, total, nreports, o);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < rd[i].n; j++)
			change_free(&rd[i].c[j]);
		free(rd[i].c);
	}
	free(rd);
	return total;
}
