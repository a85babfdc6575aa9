/* xref.h: a report's labels and the references to them.
 *
 * A label names something numbered in a report: a figure ("fig-loss",
 * a {chart} or an image), a table ("tbl-runs"), a display equation
 * ("eq-roofline"), and whatever else registers a prefix in xref.c.
 * "@fig-loss" in the prose refers to it.  Each kind of label has its
 * prefix, so that "@fig-x" is a reference while "@smith2020" is not
 * one of these; a label is letters, digits, '-' and '_' after it.
 *
 * The registry is filled while the report resolves and read when the
 * references are shown; a reference may come before its label. */
#ifndef LOGDOWN_XREF_H
#define LOGDOWN_XREF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

struct xref_label {
	char *name;       /* "fig-loss" */
	const char *kind; /* "Figure", "Table", "Equation" */
	int number;       /* its number among its kind, 0 if it has none */
	char *text;       /* what a reference shows, "Figure 2" */
	struct loc at;    /* where the label is written */
};

struct xref {
	struct xref_label *labels;
	size_t n;
};

/* The length of the label prefix s starts with ("fig-", "tbl-", "eq-"),
 * when a label character follows it; else 0.  end bounds s. */
size_t xref_prefix(const char *s, const char *end);
bool xref_label_char(char c);

/* Whether name is prefix, then one or more label characters. */
bool xref_good_name(const char *name, const char *prefix);

const struct xref_label *xref_find(const struct xref *x, const char *name);

/* Registers name (a good label) as kind's number-th, shown as text by
 * references ("Figure 2" when text is NULL, or "" for none).  A name
 * already taken is an error at `at`, and false. */
bool xref_add(struct xref *x, const char *name, const char *kind, int number, const char *text,
	      struct loc at, struct diag *d);

/* Reports a reference at `at` to name, which no label defines, with a
 * did-you-mean or a hint on how to define one of its kind. */
void xref_unknown(const struct xref *x, const char *name, struct loc at, struct diag *d);

void xref_free(struct xref *x);

#endif
