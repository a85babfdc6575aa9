/* mustache.h: the Mustache template engine used for pages.
 *
 * Implements the spec's required modules: interpolation (escaped {{x}},
 * raw {{{x}}} and {{&x}}, dotted names, the implicit iterator .),
 * sections over lists, maps and booleans, inverted sections, comments,
 * set delimiters and partials (with standalone-line indentation). */
#ifndef LOGDOWN_MUSTACHE_H
#define LOGDOWN_MUSTACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "value.h"

struct buf;
struct mustache;

/* Finds the source of partial `name`.  Appends it to out and returns
 * true, or returns false when there is no such partial (which renders
 * as nothing, as the spec requires). */
typedef bool (*mustache_loader)(void *ctx, const char *name, struct buf *out);

/* Compiles text (borrowed only during the call).  `file` names it in
 * diagnostics and must outlive the template.  An unclosed or mismatched
 * section or an unterminated tag is reported through d at its line and
 * column, and NULL returned.  Caller frees with mustache_free(). */
struct mustache *mustache_compile(const char *file, const char *text, size_t len, struct diag *d);
void mustache_free(struct mustache *m);

/* Renders m with data as the root of the context stack, appending to
 * out.  Partials come from load(ctx, name); they are compiled once per
 * template and indentation and cached in m.  Scalars interpolate as
 * value_put_text() shows them, except numbers, which take their shortest
 * form; null and missing names give nothing.  Returns false when a
 * partial fails to compile (reported through d) or partials nest deeper
 * than a fixed limit. */
bool mustache_render(struct mustache *m, const struct value *data, mustache_loader load,
		     void *ctx, struct buf *out, struct diag *d);

#endif
