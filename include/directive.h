/* directive.h: the block directives of SPEC section 6: fenced code
 * blocks whose info string is {table}, {log} or {chart}, with a YAML
 * body checked key by key. */
#ifndef LOGDOWN_DIRECTIVE_H
#define LOGDOWN_DIRECTIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "expr.h"
#include "value.h"

struct buf;
struct provenance;

/* What a directive renders into: the report's runs, run sets and
 * provenance, and the numbering of its captions. */
struct directive_ctx {
	const struct scope *scope;       /* the report's runs */
	/* run sets by name (rows: cs), parallel arrays */
	const char *const *set_names;
	const struct run *const *const *set_runs;
	const size_t *set_counts;
	size_t nsets;
	struct provenance *prov;
	struct diag *d;
	int tables;  /* captions numbered so far */
	int figures;
};

/* Renders a {table} whose YAML body (already parsed, with locations in
 * the .md file) is `body`, appending HTML to out:
 *   <figure class="ld-table" id="tbl-x"><table>
 *   <caption>Table N: ...</caption> ... </table></figure>
 * `number` is the caption's number (assigned by the caller in document
 * order).  Every key is checked: an unknown key or a bad value is an
 * error at its own line and column.  Returns false on an error. */
bool directive_table(struct directive_ctx *c, const struct value *body, int number,
		     struct buf *out);

/* Renders a {log} excerpt: from (a run), match (a pattern) or lines
 * (A-B), context, max_lines: <pre class="ld-log">, each line with its
 * own number linked to the log's page. */
bool directive_log(struct directive_ctx *c, const struct value *body, struct buf *out);

#endif
