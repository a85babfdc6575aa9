/* mustache.h: the Mustache template engine used for pages.
 *
 * Implements the spec's required modules: interpolation (escaped {{x}},
 * raw {{{x}}} and {{&x}}, dotted names, the implicit iterator .),
 * sections over lists, maps and booleans, inverted sections, comments,
 * set delimiters and partials (with standalone-line indentation), and
 * the optional inheritance module: a page written as
 * {{<base}}{{$body}}...{{/body}}{{/base}} renders the parent `base`,
 * which comes from the partial loader, with its {{$body}}default{{/body}}
 * block replaced.  The outermost replacement of a block wins, blocks are
 * replaced inside partials the parent includes too, and replacements are
 * reindented to the block's indentation.  Lambdas are not supported. */
#ifndef LOGDOWN_MUSTACHE_H
#define LOGDOWN_MUSTACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "data/value.h"

struct buf;
struct mustache;

/* Finds the source of partial `name`.  Appends it to out and returns
 * true, or returns false when there is no such partial (which renders
 * as nothing, as the spec requires). */
typedef bool (*mustache_loader)(void *ctx, const char *name, struct buf *out);

/* Compiles text (borrowed only during the call).  `file` names it in
 * diagnostics and must outlive the template.  An unclosed or mismatched
 * section, block or parent or an unterminated tag is reported through d
 * at its line and column, and NULL returned; so are an empty tag name, a
 * name with a space in it and sections, blocks and parents nested more
 * than 100 deep.  d may be NULL to report nothing.  Caller frees with
 * mustache_free(), which accepts NULL. */
struct mustache *mustache_compile(const char *file, const char *text, size_t len, struct diag *d);
void mustache_free(struct mustache *m);

/* Renders m with data as the root of the context stack, appending to
 * out.  Partials and parents come from load(ctx, name), or none when
 * load is NULL; they are compiled once per template and indentation and
 * cached in m (hence m is not const).  Scalars interpolate as
 * value_put_text() shows them, except numbers, which take their shortest
 * form; null and missing names give nothing.  Returns false when a
 * partial or parent fails to compile (reported through d) or partials
 * and parents nest deeper than a fixed limit (64, each block replaced
 * counting as a level too).
 *
 * The loader's answer for a name, found or not, is cached too, so it
 * should not change between renders of m.  A partial's or parent's
 * diagnostics name it as the file, quote its text, and add a note at the
 * tag that included it; one that fails to compile is reported by the
 * first render that needs it, and later renders return false without
 * repeating the report.  Output already appended when a render fails is
 * left in out.  d may be NULL. */
bool mustache_render(struct mustache *m, const struct value *data, mustache_loader load,
		     void *ctx, struct buf *out, struct diag *d);

/* Loads and compiles every partial and parent a render of m could
 * reach, whatever the data (each section's body taken as shown), into
 * m's cache, through load(ctx, name).  True when each was found and
 * compiled: renders of m then neither load nor change m, so that
 * mustache_render_prepared() may run on several threads at once.  False,
 * with m as it was and nothing reported, when one is missing, does not
 * compile or nests past the limit: then render with mustache_render(),
 * which reports it. */
bool mustache_prepare(struct mustache *m, mustache_loader load, void *ctx);
/* mustache_render() of an m that mustache_prepare() accepted; any
 * thread.  Its diagnostics (a page past limit template_bytes, partials
 * nesting too deep) go to d, each render's own. */
bool mustache_render_prepared(const struct mustache *m, const struct value *data,
			      struct buf *out, struct diag *d);

#endif
