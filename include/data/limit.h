/* limit.h: the caps that keep hostile input bounded.
 *
 * Every cap has a name ("yaml_depth"), a default, and two ways to raise
 * it: a `limits:` map in site.yaml (limits: {yaml_depth: 500}) for a
 * project, and the environment variable LOGDOWN_LIMIT_<NAME>
 * (LOGDOWN_LIMIT_YAML_DEPTH=500) for one run, which wins over site.yaml
 * and also reaches commands that read no site.yaml (logdown parse).
 * Depth caps have a ceiling of their own, so that raising one can never
 * overflow the stack.
 *
 * The values are process-wide: they are set while site.yaml is loaded,
 * before any work starts, and only read afterwards. */
#ifndef LOGDOWN_LIMIT_H
#define LOGDOWN_LIMIT_H

#include <stdbool.h>

#include "base/diag.h"
#include "data/value.h"

enum limit_id {
	LIMIT_PCRE_MATCH,     /* PCRE2 match limit: backtracking steps per match */
	LIMIT_PCRE_DEPTH,     /* PCRE2 depth limit: nested backtracking */
	LIMIT_YAML_DEPTH,     /* nesting of YAML lists and maps */
	LIMIT_YAML_NODES,     /* values in one YAML document (memory: ~300 bytes each) */
	LIMIT_JSON_DEPTH,     /* nesting of JSON arrays and objects */
	LIMIT_EXPR_DEPTH,     /* nesting of an expression */
	LIMIT_MARKDOWN_DEPTH, /* nesting of Markdown lists and block quotes */
	LIMIT_SERIES_ROWS,    /* rows of one series */
	LIMIT_GLOB_FILES,     /* files one glob: run set may match */
	LIMIT_MATH_SIZE,      /* bytes of one formula's TeX */
	LIMIT_MATH_DEPTH,     /* nesting of groups in one formula */
	LIMIT_DOT_NODES,      /* nodes and edges of one DOT diagram */
	LIMIT_MANIFEST_FACTS, /* job ids, and hosts, manifest.json lists for a run */
	LIMIT_IMAGE_PIXELS,   /* pixels of one image (width times height) */
	LIMIT_PAGE_VALUES,    /* values one page shows: {{ }} and table cells */
	LIMIT_TEMPLATE_BYTES, /* bytes a page's template writes but for values shown once */
	LIMIT_YAML_BYTES,     /* bytes of one YAML result file, read whole */
	LIMIT_MARKDOWN_LINE_BYTES, /* bytes of one line of a report's Markdown */
	LIMIT_MARKDOWN_INLINES,    /* characters of one paragraph that may start an inline */
	LIMIT_COUNT
};

/* The current value of a cap. */
unsigned long limit_get(enum limit_id id);

/* Its name as site.yaml spells it ("yaml_depth").  Static. */
const char *limit_name(enum limit_id id);

/* How to raise it, for the end of a diagnostic: "limit yaml_depth:
 * raise it with limits: in site.yaml or LOGDOWN_LIMIT_YAML_DEPTH".
 * Static. */
const char *limit_hint(enum limit_id id);

/* Puts every cap back to its default, then applies the environment.  A
 * variable that is not a whole number in range is reported through d
 * (or, when d is NULL, on stderr) and ignored: false then. */
bool limit_reset(struct diag *d);

/* Applies site.yaml's `limits:` map v (caps the environment set are
 * left as the environment says).  An unknown name is a warning with a
 * did-you-mean; a value that is not a whole number in range is an
 * error.  False after an error. */
bool limit_configure(const struct value *v, struct diag *d);

/* Sets one cap directly (tests).  value must be in range. */
void limit_set(enum limit_id id, unsigned long value);

#endif
