/* manifest.c: OUT/manifest.json (manifest.h): each report's entry made
 * from its runs and its rendered document, written and read back as
 * JSON.  An entry is a value tree, so that a report reused from the
 * previous output takes its entry from that output's manifest and
 * writes it again byte for byte. */
#define _GNU_SOURCE /* open_memstream() */
#include "site/manifest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fsutil.h"
#include "base/json.h"
#include "base/utf8.h"
#include "base/util.h"
#include "base/version.h"
#include "data/limit.h"
#include "parse/logparse.h"
#include "parse/report.h"
#include "parse/structured.h"
#include "resolve/claim.h"
#include "resolve/doc.h"
#include "resolve/show.h"

/* path with the project's folder left out ("content/r/logs/a.log"),
 * as the tooltips name files.  Borrowed from path. */
static const char *project_rel(const struct manifest_ctx *m, const char *path)
{
	const char *roots[2] = {m->root, m->root_real};
	for (int i = 0; i < 2; i++) {
		const char *r = roots[i];
		if (!r || !*r || strcmp(r, ".") == 0)
			continue;
		size_t len = strlen(r);
		while (len > 1 && r[len - 1] == '/')
			len--;
		if (strncmp(path, r, len) == 0 && path[len] == '/')
			return path + len + 1;
	}
	return path;
}

/* A string from a log or a page as valid UTF-8 (a byte that is not
 * becomes U+FFFD): written and read back, it gives the same bytes. */
static struct value *clean_string(const char *s, size_t n)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < n;) {
		size_t sub, k = utf8_decode((const unsigned char *)s + i, n - i, &sub, NULL);
		if (k) {
			buf_put(&b, s + i, k);
			i += k;
		} else {
			utf8_put(&b, UTF8_REPLACEMENT);
			i += sub;
		}
	}
	struct value *v = value_stringn(buf_data(&b), b.len);
	buf_free(&b);
	return v;
}

/* A number as JSON has one: NaN and the infinities by name, as strings. */
static struct value *json_number(double n)
{
	if (isfinite(n))
		return value_number(n, NULL);
	struct buf b = BUF_INIT;
	number_put(&b, n);
	struct value *v = value_string(buf_data(&b));
	buf_free(&b);
	return v;
}

static struct value *key_string(const struct cache_key *k)
{
	char text[CACHE_KEY_TEXT];
	cache_key_text(k, text);
	return value_string(text);
}

/* A list of job ids or hosts, each once, of at most limit
 * manifest_facts (a sacct table may hold a million rows): the first
 * ones found.  seen holds them as keys, so that a million rows are
 * compared in linear time. */
struct facts {
	struct value *list;
	struct value *seen;
	unsigned long max;
	bool more; /* a further one was found past the limit */
};

/* Adds text to f unless it is there already; past the limit, notes
 * that there was more. */
static void add_unique(struct facts *f, const char *text, size_t n)
{
	if (!n || f->more)
		return;
	char *key = xstrndup(text, n);
	if (value_index(f->seen, key) < 0) {
		if (f->list->count >= f->max) {
			f->more = true;
		} else {
			value_set(f->seen, key, value_new(VALUE_NULL));
			value_push(f->list, clean_string(text, n));
		}
	}
	free(key);
}

static void datum_text(struct buf *b, const struct datum *d)
{
	buf_clear(b);
	if (d->text)
		buf_put(b, d->text, d->len);
	else if (d->kind == DATUM_NUMBER)
		number_put(b, d->num);
}

/* A host as written: "nid001" of PBS's exec_host "nid001/0*8+nid002/0"
 * (each host before its '/'), a Slurm node list as it is. */
static void add_hosts(struct facts *hosts, const char *s, size_t n)
{
	const char *end = s + n;
	while (s < end) {
		const char *plus = memchr(s, '+', (size_t)(end - s));
		const char *stop = plus ? plus : end;
		const char *slash = memchr(s, '/', (size_t)(stop - s));
		add_unique(hosts, s, (size_t)((slash ? slash : stop) - s));
		s = stop + (plus != NULL);
	}
}

static bool is_host_name(const char *name)
{
	static const char *const names[] = {"node", "host", "hostname", "exec_host", "nodelist",
					    NULL};
	for (size_t i = 0; names[i]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* The job ids and hosts a run holds: its fields job_id and node, host,
 * hostname, exec_host or nodelist (the Slurm, seff and PBS parsers'),
 * and the columns of those names of its series (Slurm's jobs), each
 * once, in the order found. */
static void job_facts(const struct run *r, struct facts *ids, struct facts *hosts)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < run_field_count(r); i++) {
		const char *name = run_field_name(r, i);
		const struct datum *d = run_field_at(r, i);
		if (d->kind == DATUM_MISSING)
			continue;
		datum_text(&b, d);
		if (strcmp(name, "job_id") == 0)
			add_unique(ids, buf_data(&b), b.len);
		else if (is_host_name(name))
			add_hosts(hosts, buf_data(&b), b.len);
	}
	for (size_t i = 0; i < run_series_count(r); i++) {
		const struct series *s = run_series_at(r, i);
		for (size_t c = 0; c < series_column_count(s); c++) {
			const char *col = series_column(s, c);
			bool id = strcmp(col, "job_id") == 0, host = is_host_name(col);
			struct facts *to = id ? ids : hosts;
			for (size_t row = 0; (id || host) && !to->more && row < series_row_count(s);
			     row++) {
				struct datum d;
				series_cell(s, row, c, &d);
				if (d.kind == DATUM_MISSING)
					continue;
				datum_text(&b, &d);
				if (id)
					add_unique(ids, buf_data(&b), b.len);
				else
					add_hosts(hosts, buf_data(&b), b.len);
			}
		}
	}
	buf_free(&b);
}

static struct value *run_entry(const struct manifest_ctx *m, const struct run *r)
{
	struct value *e = value_new(VALUE_MAP);
	value_set(e, "name", clean_string(run_name(r), strlen(run_name(r))));
	const char *file = run_file(r);
	value_set(e, "file", clean_string(project_rel(m, file), strlen(project_rel(m, file))));
	struct stat st;
	char *real = path_real(file);
	struct cache_key k;
	if (real && stat(real, &st) == 0 && cache_file_hash(m->disk, real, &k)) {
		value_set(e, "size", value_number((double)st.st_size, NULL));
		value_set(e, "hash", key_string(&k));
	} else {
		value_set(e, "size", value_new(VALUE_NULL));
		value_set(e, "hash", value_new(VALUE_NULL));
	}
	free(real);
	const char *pname = run_parser(r);
	value_set_str(e, "parser", pname ? pname : "");
	const struct parser *p = pname ? parsers_find(m->parsers, pname) : NULL;
	if (p) {
		size_t len;
		const char *text = parser_source(p, &len);
		k = cache_hash_bytes(text, len);
		value_set(e, "parser_hash", key_string(&k));
	} else {
		value_set(e, "parser_hash", value_new(VALUE_NULL));
	}
	unsigned long max = limit_get(LIMIT_MANIFEST_FACTS);
	struct facts ids = {value_new(VALUE_LIST), value_new(VALUE_MAP), max, false};
	struct facts hosts = {value_new(VALUE_LIST), value_new(VALUE_MAP), max, false};
	job_facts(r, &ids, &hosts);
	struct facts *both[2] = {&ids, &hosts};
	const char *what[2] = {"job ids", "hosts"};
	for (int i = 0; i < 2; i++) {
		if (both[i]->more && m->d)
			diag_warning(m->d, loc_line(file, 0),
				     "run '%s' has more than %lu %s: manifest.json lists the first "
				     "%lu (%s)",
				     run_name(r), max, what[i], max,
				     limit_hint(LIMIT_MANIFEST_FACTS));
		value_free(both[i]->seen);
	}
	value_set(e, "job_ids", ids.list);
	value_set(e, "hosts", hosts.list);
	return e;
}

static struct value *runs_list(const struct manifest_ctx *m, const struct report *r)
{
	struct value *list = value_new(VALUE_LIST);
	for (size_t i = 0; i < r->runs.count; i++) {
		const struct runset *set = &r->runs.sets[i];
		for (size_t j = 0; j < set->count; j++)
			if (set->runs[j])
				value_push(list, run_entry(m, set->runs[j]));
	}
	return list;
}

/* "content/r/index.md:12:5" */
static struct value *place(const struct manifest_ctx *m, struct loc at)
{
	char *s = xasprintf("%s:%d:%d", project_rel(m, at.file ? at.file : ""), at.line, at.col);
	struct value *v = value_string(s);
	free(s);
	return v;
}

/* Where each line of the .md file starts (lines[k] for line k + 1): a
 * report of 50,000 values is not scanned from its start for each. */
static size_t *line_starts(const struct report *r, size_t *n)
{
	size_t cap = 64;
	size_t *lines = xmalloc(cap * sizeof *lines);
	*n = 0;
	lines[(*n)++] = 0;
	for (const char *p = r->text, *end = r->text + r->len;
	     (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++) {
		if (*n == cap)
			lines = xrealloc(lines, (cap *= 2) * sizeof *lines);
		lines[(*n)++] = (size_t)(p + 1 - r->text);
	}
	return lines;
}

/* The text at `at` (at.len bytes from its line and column) of the .md
 * file, whose whole text is r->text. */
static struct value *written(const struct report *r, const size_t *lines, size_t nlines,
			     struct loc at)
{
	size_t start = at.line >= 1 && (size_t)at.line <= nlines ? lines[at.line - 1] : r->len;
	const char *p = r->text + start, *end = r->text + r->len;
	size_t off = at.col > 0 ? (size_t)at.col - 1 : 0;
	if (off > (size_t)(end - p))
		off = (size_t)(end - p);
	p += off;
	size_t n = at.len > 0 ? (size_t)at.len : 0;
	if (n > (size_t)(end - p))
		n = (size_t)(end - p);
	return clean_string(p, n);
}

static struct value *shown_text(const struct directive_text *t)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; t && i < t->n; i++)
		buf_put(&b, t->p[i].text, t->p[i].len);
	struct value *v = clean_string(buf_data(&b), b.len);
	buf_free(&b);
	return v;
}

static struct value *values_list(const struct manifest_ctx *m, const struct report *r,
				 const struct doc *doc)
{
	struct value *list = value_new(VALUE_LIST);
	size_t nlines;
	size_t *lines = line_starts(r, &nlines);
	for (size_t i = 0; i < doc_value_count(doc); i++) {
		struct loc at;
		bool has_num;
		double num;
		const struct directive_text *t = doc_value(doc, i);
		if (!t || !t->n || !doc_value_number(doc, i, &at, &has_num, &num))
			continue;
		struct value *e = value_new(VALUE_MAP);
		value_set(e, "at", place(m, at));
		value_set(e, "source", written(r, lines, nlines, at));
		value_set(e, "text", shown_text(t));
		value_set(e, "number", has_num ? json_number(num) : value_new(VALUE_NULL));
		const struct directive_piece *p = &t->p[0];
		value_set(e, "from", p->title && !p->missing ? clean_string(p->title, strlen(p->title))
							     : value_new(VALUE_NULL));
		value_push(list, e);
	}
	free(lines);
	return list;
}

static void put_common(const struct manifest_ctx *m, struct value *e,
		       const struct directive_result *d)
{
	value_set(e, "at", place(m, d->at));
	value_set(e, "label", d->label ? value_string(d->label) : value_new(VALUE_NULL));
	value_set(e, "number", value_number(d->number, NULL));
}

static struct value *table_entry(const struct manifest_ctx *m, const struct directive_result *d)
{
	struct value *e = value_new(VALUE_MAP);
	put_common(m, e, d);
	struct value *rows = value_new(VALUE_LIST);
	for (size_t i = 0; i < d->rows; i++) {
		struct value *row = value_new(VALUE_LIST);
		for (size_t j = 0; j < d->cols; j++)
			value_push(row, shown_text(&d->cells[i * d->cols + j].text));
		value_push(rows, row);
	}
	value_set(e, "cells", rows);
	return e;
}

static struct value *chart_entry(const struct manifest_ctx *m, const struct directive_result *d)
{
	struct value *e = value_new(VALUE_MAP);
	put_common(m, e, d);
	struct value *list = value_new(VALUE_LIST);
	/* the series as the chart was drawn, or as the memo kept them: the
	 * points are hashed where they are read (chart_digest_hash()) */
	for (size_t i = 0; i < d->ndigest; i++) {
		const struct chart_digest *g = &d->digest[i];
		struct value *se = value_new(VALUE_MAP);
		value_set(se, "name", clean_string(g->name, strlen(g->name)));
		value_set(se, "points", value_number((double)g->points, NULL));
		value_set(se, "hash", key_string(&g->hash));
		value_push(list, se);
	}
	value_set(e, "series", list);
	return e;
}

/* The report's claims as checked: where, on what, as written, the
 * number, and whether it held (null: not checked, or relative: its
 * outcome depends on the committed site, and the manifest only on the
 * inputs, so that check --against finds it the same). */
static struct value *claims_list(const struct manifest_ctx *m, const struct doc *doc)
{
	struct value *list = value_new(VALUE_LIST);
	const struct claim_record *c;
	for (size_t i = 0; (c = doc_claim(doc, i)) != NULL; i++) {
		struct value *e = value_new(VALUE_MAP);
		value_set(e, "at", place(m, c->at));
		value_set(e, "expression", clean_string(c->expr, strlen(c->expr)));
		value_set(e, "claim", clean_string(c->claim, strlen(c->claim)));
		value_set(e, "number", c->has_num ? json_number(c->num) : value_new(VALUE_NULL));
		value_set(e, "holds", c->relative                ? value_new(VALUE_NULL)
				      : c->outcome == CLAIM_HELD  ? value_bool(true)
				      : c->outcome == CLAIM_BROKE ? value_bool(false)
								  : value_new(VALUE_NULL));
		value_push(list, e);
	}
	return list;
}

struct value *manifest_report(const struct manifest_ctx *m, const struct report *r,
			      const struct doc *doc)
{
	struct value *e = value_new(VALUE_MAP);
	value_set(e, "slug", clean_string(r->slug, strlen(r->slug)));
	value_set(e, "source", clean_string(project_rel(m, r->path), strlen(project_rel(m, r->path))));
	value_set(e, "runs", runs_list(m, r));
	value_set(e, "values", values_list(m, r, doc));
	struct value *tables = value_new(VALUE_LIST), *charts = value_new(VALUE_LIST);
	for (size_t i = 0; i < doc_directive_count(doc); i++) {
		const struct directive_result *d = doc_directive_at(doc, i);
		if (d->kind == DIRECTIVE_TABLE && d->ok)
			value_push(tables, table_entry(m, d));
		else if (d->kind == DIRECTIVE_CHART && d->ok)
			value_push(charts, chart_entry(m, d));
	}
	value_set(e, "tables", tables);
	value_set(e, "charts", charts);
	if (doc_claim(doc, 0))
		value_set(e, "claims", claims_list(m, doc));
	return e;
}

void manifest_entry_hash(const struct value *entry, char out[MANIFEST_SHORT_HASH + 1])
{
	struct buf b = BUF_INIT;
	manifest_put_json(&b, entry);
	struct cache_key k = cache_hash_bytes(b.data ? b.data : "", b.len);
	buf_free(&b);
	char text[CACHE_KEY_TEXT];
	cache_key_text(&k, text);
	/* "xxh3-128:" and the digits */
	const char *digits = strchr(text, ':');
	digits = digits ? digits + 1 : text;
	memcpy(out, digits, MANIFEST_SHORT_HASH);
	out[MANIFEST_SHORT_HASH] = '\0';
}

/* The expression of a value's source as the manifest writes it,
 * "{{ a.loss :.2f | expect ±5% }}": "a.loss".  Caller frees. */
static char *source_expr(const struct value *src)
{
	if (!src || src->kind != VALUE_STRING || src->len < 4 || strncmp(src->text, "{{", 2) != 0)
		return NULL;
	const char *inner = src->text + 2;
	size_t n = src->len - 4, expr_len, spec_off;
	n = claim_split(inner, n);
	show_split_spec(inner, n, &expr_len, &spec_off);
	while (expr_len && (*inner == ' ' || *inner == '\t'))
		inner++, expr_len--;
	while (expr_len && (inner[expr_len - 1] == ' ' || inner[expr_len - 1] == '\t'))
		expr_len--;
	return xstrndup(inner, expr_len);
}

/* The number of the occurrence-th item of list whose expression (key
 * "expression", or a value's source) is expr: 1 with it, 0 when its
 * number was null, -1 when there is no such item. */
static int nth_number(const struct value *list, bool sources, const char *expr,
		      size_t occurrence, double *num)
{
	for (size_t i = 0; list && list->kind == VALUE_LIST && i < list->count; i++) {
		const struct value *it = list->items[i];
		char *e = sources ? source_expr(value_get(it, "source")) : NULL;
		const struct value *x = sources ? NULL : value_get(it, "expression");
		bool same = sources ? e && strcmp(e, expr) == 0
				    : x && x->kind == VALUE_STRING && strcmp(x->text, expr) == 0;
		free(e);
		if (!same || occurrence-- > 0)
			continue;
		const struct value *v = value_get(it, "number");
		if (!v || v->kind != VALUE_NUMBER)
			return 0;
		*num = v->number;
		return 1;
	}
	return -1;
}

bool manifest_claim_base(const struct value *m, const char *shown, const char *slug,
			 const char *expr, size_t occurrence, double *num, char **why)
{
	const struct value *e = manifest_find(m, slug);
	if (!m) {
		char *path = path_join(shown, MANIFEST_FILE);
		*why = path_exists(path)
			       ? xasprintf("%s cannot be read: rebuild the site", path)
			       : xasprintf("nothing was built into %s before, so there is no value "
					   "to compare with yet",
					   shown);
		free(path);
		return false;
	}
	if (!e) {
		*why = xasprintf("%s holds no report '%s' to compare with", shown, slug);
		return false;
	}
	int got = nth_number(value_get(e, "claims"), false, expr, occurrence, num);
	if (got < 0)
		got = nth_number(value_get(e, "values"), true, expr, 0, num);
	if (got < 0)
		*why = xasprintf("the report in %s shows no %s to compare with", shown, expr);
	else if (got == 0)
		*why = xasprintf("%s had no number in %s", expr, shown);
	return got > 0;
}

struct value *manifest_load(const char *dir, const char *shown, struct diag *d)
{
	char *path = path_join(dir, MANIFEST_FILE);
	char *name = path_join(shown, MANIFEST_FILE);
	struct value *v = NULL;
	if (!is_dir(dir)) {
		diag_error(d, loc_line(shown, 0), "not a built site: %s",
			   path_exists(dir) ? "not a folder" : "No such file or directory");
	} else if (!path_exists(path)) {
		diag_error(d, loc_line(shown, 0),
			   "no %s: %s was built by a logdown without manifests or is not a site: "
			   "rebuild it",
			   MANIFEST_FILE, shown);
	} else {
		v = structured_json_tree(path, name, d);
		const struct value *reports = v ? value_get(v, "reports") : NULL;
		if (v && (v->kind != VALUE_MAP || !reports || reports->kind != VALUE_LIST)) {
			diag_error(d, v->loc.line ? v->loc : loc_line(name, 0),
				   "not a logdown manifest: it has no \"reports\" list");
			value_free(v);
			v = NULL;
		}
	}
	/* the diagnostics are done with the names */
	free(path);
	free(name);
	return v;
}

const struct value *manifest_find(const struct value *m, const char *slug)
{
	const struct value *reports = m ? value_get(m, "reports") : NULL;
	for (size_t i = 0; reports && reports->kind == VALUE_LIST && i < reports->count; i++) {
		const struct value *s = value_get(reports->items[i], "slug");
		if (s && s->kind == VALUE_STRING && strcmp(s->text, slug) == 0)
			return reports->items[i];
	}
	return NULL;
}

struct manifest_slugs {
	const struct value **slot; /* entries by str_hash() of their slug */
	size_t cap;		   /* a power of two, at least twice the entries */
};

static const char *entry_slug(const struct value *e)
{
	const struct value *s = value_get(e, "slug");
	return s && s->kind == VALUE_STRING ? s->text : NULL;
}

struct manifest_slugs *manifest_slugs_new(const struct value *m)
{
	struct manifest_slugs *t = xcalloc(1, sizeof *t);
	const struct value *reports = m ? value_get(m, "reports") : NULL;
	size_t n = reports && reports->kind == VALUE_LIST ? reports->count : 0;
	t->cap = 16;
	while (t->cap < 2 * n)
		t->cap *= 2;
	t->slot = xcalloc(t->cap, sizeof *t->slot);
	for (size_t i = 0; i < n; i++) {
		const char *slug = entry_slug(reports->items[i]);
		if (!slug)
			continue;
		size_t k = (size_t)str_hash(slug) & (t->cap - 1);
		while (t->slot[k] && strcmp(entry_slug(t->slot[k]), slug) != 0)
			k = (k + 1) & (t->cap - 1);
		if (!t->slot[k]) /* the first of a slug, as manifest_find() */
			t->slot[k] = reports->items[i];
	}
	return t;
}

const struct value *manifest_slugs_find(const struct manifest_slugs *t, const char *slug)
{
	for (size_t k = (size_t)str_hash(slug) & (t->cap - 1); t->slot[k];
	     k = (k + 1) & (t->cap - 1))
		if (strcmp(entry_slug(t->slot[k]), slug) == 0)
			return t->slot[k];
	return NULL;
}

void manifest_slugs_free(struct manifest_slugs *t)
{
	if (t)
		free(t->slot);
	free(t);
}

static bool scalar(const struct value *v)
{
	return v->kind != VALUE_LIST && v->kind != VALUE_MAP;
}

/* A newline, with "," before it when after, then indent spaces. */
static void put_break(struct buf *b, bool after, int indent)
{
	if (after)
		buf_putc(b, ',');
	buf_grow(b, (size_t)indent + 1);
	b->data[b->len++] = '\n';
	memset(b->data + b->len, ' ', (size_t)indent);
	b->len += (size_t)indent;
	b->data[b->len] = '\0';
}

/* Appended to a buffer, not through a FILE: a cached build writes every
 * report's entry twice (its digest, then the manifest), 10,000 of them
 * where nothing changed. */
static void put_json(struct buf *b, const struct value *v, int indent)
{
	switch (v->kind) {
	case VALUE_NULL:
		buf_put(b, "null", 4);
		break;
	case VALUE_BOOL:
		buf_puts(b, v->boolean ? "true" : "false");
		break;
	case VALUE_NUMBER:
		if (v->text)
			buf_put(b, v->text, v->len);
		else
			number_put(b, v->number);
		break;
	case VALUE_STRING:
		json_buf_string(b, v->text, v->len);
		break;
	case VALUE_LIST: {
		bool flat = true;
		for (size_t i = 0; i < v->count; i++)
			flat = flat && scalar(v->items[i]);
		buf_putc(b, '[');
		for (size_t i = 0; i < v->count; i++) {
			if (flat && i)
				buf_put(b, ", ", 2);
			else if (!flat)
				put_break(b, i, indent + 2);
			put_json(b, v->items[i], indent + 2);
		}
		if (!flat && v->count)
			put_break(b, false, indent);
		buf_putc(b, ']');
		break;
	}
	case VALUE_MAP:
		buf_putc(b, '{');
		for (size_t i = 0; i < v->count; i++) {
			put_break(b, i, indent + 2);
			json_buf_string(b, v->keys[i], strlen(v->keys[i]));
			buf_put(b, ": ", 2);
			put_json(b, v->items[i], indent + 2);
		}
		if (v->count)
			put_break(b, false, indent);
		buf_putc(b, '}');
		break;
	}
}

void manifest_put_json(struct buf *out, const struct value *v)
{
	put_json(out, v, 0);
}

struct cache_key manifest_entry_digest(const struct value *entry)
{
	struct buf json = BUF_INIT;
	if (entry)
		manifest_put_json(&json, entry);
	struct cache_hasher *h = cache_hasher_new();
	cache_hasher_str(h, entry ? "manifest entry" : "no manifest entry");
	cache_hasher_bytes(h, json.data, json.len);
	buf_free(&json);
	return cache_hasher_end(h);
}

static int cmp_slug(const void *pa, const void *pb)
{
	const struct value *a = *(struct value *const *)pa, *b = *(struct value *const *)pb;
	const struct value *sa = value_get(a, "slug"), *sb = value_get(b, "slug");
	return strcmp(sa && sa->text ? sa->text : "", sb && sb->text ? sb->text : "");
}

void manifest_write(struct buf *out, const struct value *const *entries, size_t n)
{
	/* only read: the tree below holds them to be written */
	struct value **sorted = xcalloc(n + 1, sizeof *sorted);
	memcpy(sorted, entries, n * sizeof *sorted);
	if (n > 1)
		qsort(sorted, n, sizeof *sorted, cmp_slug);
	/* the entries are borrowed: the tree holds them only to write it */
	struct value *m = value_new(VALUE_MAP);
	value_set_str(m, "logdown", LOGDOWN_VERSION);
	struct value *list = value_new(VALUE_LIST);
	list->items = sorted;
	list->count = list->cap = n;
	value_set(m, "reports", list);
	manifest_put_json(out, m);
	buf_putc(out, '\n');
	list->items = NULL;
	list->count = list->cap = 0;
	value_free(m);
	free(sorted);
}
