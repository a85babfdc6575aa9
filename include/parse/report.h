/* report.h: one report: its source file, front matter and slug. */
#ifndef LOGDOWN_REPORT_H
#define LOGDOWN_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "parse/runs.h"
#include "data/value.h"

struct report {
	char *path;   /* the .md file as diagnostics name it */
	char *dir;    /* its folder: paths in the report are relative to it */
	char *slug;   /* output folder under the site: "hw07" */
	bool bundle;  /* content/<slug>/index.md, owning its folder's files */
	char *text;   /* the whole file, NUL-terminated */
	size_t len;
	/* The Markdown body: text + body_off, starting on line body_line. */
	size_t body_off;
	int body_line;
	struct value *meta; /* the front matter map (empty without one) */
	/* Front matter fields, "" where absent. */
	char *title;
	char *author;
	char *date;
	char *summary;
	bool draft;
	/* toc, number_sections: 1 true, 0 false, -1 not given (site.yaml's
	 * then) */
	int toc;
	int number_sections;
	/* allow_numbers: 1 true (no `check --lint` of its prose), 0 false,
	 * -1 not given (site.yaml's then) */
	int allow_numbers;
	char *html; /* the rendered body, once rendered */
	char *toc_html; /* its table of contents, "" for none */
	struct report_runs runs; /* its result files, once loaded */
};

/* The slug for a report at rel, a path relative to content/ ending in
 * .md: "hw07.md" and "hw07/index.md" give "hw07"; characters other than
 * letters, digits, '-', '_', '.' and '/' become '-', letters are
 * lowercased.  NULL for "index.md" itself (the site index is not a
 * report).  Caller frees. */
char *report_slug(const char *rel);

/* The "../" prefix that leads from the page of slug back to the site
 * root: "../" for "hw07", "../../" for "2024/hw07".  Caller frees. */
char *report_root_prefix(const char *slug);

/* Reads path and its front matter into r.  Problems (unreadable file,
 * malformed YAML at its line in the .md file, a bad date, draft that is
 * not true/false) are reported through d; an unknown front matter key is
 * a warning.  Returns false on an error.  The text stays registered with
 * d for quoting until report_free().  Free with report_free() in any
 * case. */
bool report_load(struct report *r, const char *path, const char *slug, struct diag *d);
void report_free(struct report *r, struct diag *d);

/* Splits text into front matter and body.  On success *yaml and *yaml_len
 * hold the YAML between the --- lines (yaml_line: the line it starts
 * on), *body_off and *body_line where the Markdown begins.  A file without
 * front matter gives yaml_len 0 and body_off 0.  Returns false when a
 * front matter block is opened and never closed. */
bool frontmatter_split(const char *text, size_t len, const char **yaml, size_t *yaml_len,
		       int *yaml_line, size_t *body_off, int *body_line);

/* True when s is YYYY-MM-DD with a real month and day, optionally
 * followed by a time ("T14:09:43" or " 14:09", seconds optional). */
bool date_valid(const char *s);

#endif
