/* config.h: the project's site.yaml. */
#ifndef LOGDOWN_CONFIG_H
#define LOGDOWN_CONFIG_H

#include <stdbool.h>

#include "base/diag.h"
#include "data/value.h"

struct config {
	char *path;     /* "DIR/site.yaml", for diagnostics */
	char *title;    /* default "Reports" */
	char *author;   /* default "" */
	char *base_url; /* default "/" */
	char *output;   /* default "_site", relative to the project root */
	char *paper;    /* "a4" (default) or "letter" */
	char **parsers; /* extra parser folders, NULL-terminated */
	int toc;        /* 1 true, 0 false, -1 not given: contents in the
			 * HTML, and with true in the PDF too */
	bool number_sections; /* "Section 2.1"; a report's front matter may
			       * say otherwise */
	bool footer_hash; /* the page's footer (and the PDF's) shows the short
			   * hash of the report's manifest entry */
	bool allow_numbers; /* no `check --lint` of hand-typed numbers; a
			     * report's front matter may say otherwise */
	struct value *raw; /* the whole document, or NULL without site.yaml */
};

/* Loads ROOT/site.yaml into c, or the defaults when there is none.
 * Unknown keys are warnings; a bad value or malformed YAML is an error
 * reported through d, and then false is returned (c still holds the
 * defaults where a value was bad).  Free with config_free(). */
bool config_load(struct config *c, const char *root, struct diag *d);
void config_free(struct config *c);

#endif
