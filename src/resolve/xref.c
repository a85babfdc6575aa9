/* xref.c: a report's labels and the references to them (xref.h). */
#include "resolve/xref.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Each kind of label: its prefix, and how to define one, for the
 * message at a reference to an undefined label. */
static const struct {
	const char *prefix;
	const char *how; /* each %s: the label */
} kinds[] = {
	{"fig-", "give a {chart} 'label: %s', or an image {#%s}"},
	{"tbl-", "give a {table} 'label: %s'"},
	{"eq-", "label a display equation $$ ... $$ {#%s}"},
	{"sec-", "label a heading, as in '## Results {#%s}'"},
};

bool xref_label_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

size_t xref_prefix(const char *s, const char *end)
{
	for (size_t i = 0; i < ARRAY_LEN(kinds); i++) {
		size_t n = strlen(kinds[i].prefix);
		if ((size_t)(end - s) > n && strncmp(s, kinds[i].prefix, n) == 0 &&
		    xref_label_char(s[n]))
			return n;
	}
	return 0;
}

bool xref_good_name(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	bool ok = strncmp(name, prefix, n) == 0 && name[n];
	for (const char *s = name; ok && *s; s++)
		ok = xref_label_char(*s);
	return ok;
}

const struct xref_label *xref_find(const struct xref *x, const char *name)
{
	for (size_t i = 0; i < x->n; i++)
		if (strcmp(x->labels[i].name, name) == 0)
			return &x->labels[i];
	return NULL;
}

bool xref_add(struct xref *x, const char *name, const char *kind, int number, const char *text,
	      struct loc at, struct diag *d)
{
	const struct xref_label *old = xref_find(x, name);
	if (old) {
		if (old->number)
			diag_error(d, at, "label '%s' is already %s %d's", name, old->kind,
				   old->number);
		else
			diag_error(d, at, "label '%s' is already %s's", name, old->text);
		return false;
	}
	x->labels = xrealloc(x->labels, (x->n + 1) * sizeof *x->labels);
	x->labels[x->n++] = (struct xref_label){
		.name = xstrdup(name),
		.kind = kind,
		.number = number,
		.text = text ? xstrdup(text) : xasprintf("%s %d", kind, number),
		.at = at,
	};
	return true;
}

void xref_unknown(const struct xref *x, const char *name, struct loc at, struct diag *d)
{
	const char **names = xcalloc(x->n + 1, sizeof *names);
	for (size_t i = 0; i < x->n; i++)
		names[i] = x->labels[i].name;
	const char *near = closest_name(name, names);
	if (near) {
		diag_error(d, at, "label '%s' is not defined (did you mean '%s'?)", name, near);
	} else {
		const char *how = NULL;
		for (size_t i = 0; i < ARRAY_LEN(kinds) && !how; i++)
			if (str_has_prefix(name, kinds[i].prefix))
				how = kinds[i].how;
		struct buf msg = BUF_INIT;
		buf_printf(&msg, "label '%s' is not defined", name);
		if (how) {
			buf_puts(&msg, ": ");
			buf_printf(&msg, how, name, name);
		}
		diag_error(d, at, "%s", msg.data);
		buf_free(&msg);
	}
	free(names);
}

void xref_free(struct xref *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free(x->labels[i].name);
		free(x->labels[i].text);
	}
	free(x->labels);
	*x = (struct xref){0};
}
