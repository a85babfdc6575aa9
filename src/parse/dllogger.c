/* dllogger.c: NVIDIA DLLogger's `DLLL {json}` lines into a run
 * (format: dllogger; include/parse/dllogger.h).
 *
 * Each line holding "DLLL {" is parsed from its '{' to its end by the
 * JSON reader (structured_json_text()), with the line and column kept
 * for its diagnostics and its cells' provenance.  The series' columns
 * are the union of every event's data keys, so the events are read
 * first and the rows made after. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "data/value.h"
#include "parse/dllogger.h"
#include "parse/structured.h"
#include "parse/valuetype.h"

/* An event of the series: its step, elapsed time and data. */
struct event {
	struct value *v;
	long line;
};

struct names {
	char **at;
	size_t n, cap;
};

static long name_index(const struct names *ns, const char *name)
{
	for (size_t i = 0; i < ns->n; i++)
		if (strcmp(ns->at[i], name) == 0)
			return (long)i;
	return -1;
}

static size_t name_add(struct names *ns, const char *name)
{
	long k = name_index(ns, name);
	if (k >= 0)
		return (size_t)k;
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 16;
		ns->at = xrealloc(ns->at, ns->cap * sizeof *ns->at);
	}
	ns->at[ns->n] = xstrdup(name);
	return ns->n++;
}

static bool is_scalar(const struct value *v)
{
	return v && v->kind != VALUE_LIST && v->kind != VALUE_MAP;
}

/* The datum of a scalar JSON value: a number, a string typed as the
 * SPEC says ("91.662534" is a number: DLLogger writes elapsedtime as a
 * string), missing for null. */
static struct datum datum_of(const struct value *v, long line)
{
	struct datum d = {.kind = DATUM_MISSING, .line = line};
	switch (v->kind) {
	case VALUE_NUMBER:
		d.kind = DATUM_NUMBER;
		d.num = v->number;
		d.text = v->text;
		d.len = v->text ? strlen(v->text) : 0;
		break;
	case VALUE_STRING:
		d = datum_from_text(v->text, v->len, line);
		break;
	case VALUE_BOOL:
		d.kind = DATUM_STRING;
		d.text = v->boolean ? "true" : "false";
		d.len = strlen(d.text);
		break;
	default:
		break;
	}
	return d;
}

/* A data key's name: snake_case, or NULL when it has no letter or digit. */
static char *key_name(const char *key)
{
	char *s = snake_case(key, strlen(key));
	if (!*s) {
		free(s);
		return NULL;
	}
	return s;
}

/* The step of a series event: a list of numbers or a number; NULL for
 * PARAMETER, the summary ([]) and anything else. */
static const struct value *row_step(const struct value *step)
{
	if (!step)
		return NULL;
	if (step->kind == VALUE_NUMBER)
		return step;
	if (step->kind != VALUE_LIST || step->count == 0)
		return NULL;
	for (size_t i = 0; i < step->count; i++)
		if (step->items[i]->kind != VALUE_NUMBER)
			return NULL;
	return step;
}

static bool is_parameter(const struct value *ev)
{
	const struct value *type = value_get(ev, "type");
	const struct value *step = value_get(ev, "step");
	return (type && type->kind == VALUE_STRING && strcmp(type->text, "PARAMETER") == 0) ||
	       (step && step->kind == VALUE_STRING && strcmp(step->text, "PARAMETER") == 0) ||
	       (step && step->kind == VALUE_LIST && step->count == 0);
}

/* The data's scalar values as fields. */
static void set_fields(struct run *r, const struct value *data, long line)
{
	for (size_t i = 0; i < data->count; i++) {
		if (!is_scalar(data->items[i]))
			continue;
		char *name = key_name(data->keys[i]);
		if (!name)
			continue;
		struct datum d = datum_of(data->items[i], line);
		run_set_field(r, name, &d);
		free(name);
	}
}

/* One line: the event in it, or NULL (not a DLLL line, or malformed:
 * reported). */
static struct value *read_line(const char *line, size_t n, long no, const char *shown,
			       struct diag *d)
{
	static const char mark[] = "DLLL {";
	const char *p = NULL;
	for (const char *q = line; (size_t)(line + n - q) >= sizeof mark - 1;) {
		const char *hit = memchr(q, 'D', (size_t)(line + n - q));
		if (!hit || (size_t)(line + n - hit) < sizeof mark - 1)
			break;
		if (memcmp(hit, mark, sizeof mark - 1) == 0) {
			p = hit + 5;
			break;
		}
		q = hit + 1;
	}
	if (!p)
		return NULL;
	size_t len = (size_t)(line + n - p);
	while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
		len--;
	struct value *v = structured_json_text(p, len, shown, (int)no, (int)(p - line) + 1, d);
	if (v && v->kind != VALUE_MAP) {
		value_free(v);
		v = NULL;
	}
	return v;
}

bool dllogger_read(struct run *r, const char *path, const char *shown, struct diag *d)
{
	struct buf text = BUF_INIT;
	if (!file_read(path, &text, NULL)) {
		diag_error(d, loc_line(shown, 0), "cannot read: %s", strerror(errno));
		buf_free(&text);
		return false;
	}
	const char *t = buf_data(&text);
	size_t len = text.len;
	diag_add_source(d, shown, t, len);

	struct event *evs = NULL;
	size_t nev = 0, cap = 0;
	struct names cols = {0};
	long no = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(t + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (t + i)) : len - i;
		no++;
		struct value *ev = read_line(t + i, n, no, shown, d);
		i += n + (nl ? 1 : 0);
		if (!ev)
			continue;
		const struct value *data = value_get(ev, "data");
		if (!data || data->kind != VALUE_MAP)
			data = NULL;
		const struct value *step = row_step(value_get(ev, "step"));
		if (step) {
			if (step->kind == VALUE_NUMBER) {
				name_add(&cols, "step");
			} else {
				for (size_t k = 0; k < step->count; k++) {
					char *c = xasprintf("step_%zu", k);
					name_add(&cols, c);
					free(c);
				}
			}
			name_add(&cols, "elapsedtime");
			for (size_t k = 0; data && k < data->count; k++) {
				char *c = is_scalar(data->items[k]) ? key_name(data->keys[k]) : NULL;
				if (c)
					name_add(&cols, c);
				free(c);
			}
			if (nev == cap) {
				cap = cap ? 2 * cap : 64;
				evs = xrealloc(evs, cap * sizeof *evs);
			}
			evs[nev].v = ev;
			evs[nev++].line = no;
			continue;
		}
		if (data && is_parameter(ev))
			set_fields(r, data, no);
		value_free(ev);
	}
	run_set_line_count(r, no);

	if (nev) {
		/* step and step_N first, then elapsedtime, then the data's
		 * keys: the order they were first seen in, steps first. */
		struct series *s = run_add_series(r, "log", (const char *const *)cols.at, cols.n);
		struct datum *cells = xmalloc(cols.n * sizeof *cells);
		char **names = xmalloc(cols.n * sizeof *names);
		for (size_t e = 0; s && e < nev; e++) {
			const struct value *ev = evs[e].v;
			long line = evs[e].line;
			for (size_t c = 0; c < cols.n; c++)
				cells[c] = (struct datum){.kind = DATUM_MISSING, .line = line};
			const struct value *step = row_step(value_get(ev, "step"));
			if (step->kind == VALUE_NUMBER) {
				cells[name_index(&cols, "step")] = datum_of(step, line);
			} else {
				for (size_t k = 0; k < step->count; k++) {
					char *c = xasprintf("step_%zu", k);
					cells[name_index(&cols, c)] = datum_of(step->items[k], line);
					free(c);
				}
			}
			const struct value *el = value_get(ev, "elapsedtime");
			if (is_scalar(el))
				cells[name_index(&cols, "elapsedtime")] = datum_of(el, line);
			const struct value *data = value_get(ev, "data");
			size_t nn = 0;
			for (size_t k = 0; data && data->kind == VALUE_MAP && k < data->count; k++) {
				char *c = is_scalar(data->items[k]) ? key_name(data->keys[k]) : NULL;
				if (!c)
					continue;
				cells[name_index(&cols, c)] = datum_of(data->items[k], line);
				names[nn++] = c;
			}
			series_append(s, cells, line);
			for (size_t k = 0; k < nn; k++)
				free(names[k]);
		}
		free(names);
		free(cells);
	}
	for (size_t e = 0; e < nev; e++)
		value_free(evs[e].v);
	free(evs);
	for (size_t c = 0; c < cols.n; c++)
		free(cols.at[c]);
	free(cols.at);
	diag_forget_source(d, shown);
	buf_free(&text);
	return true;
}
