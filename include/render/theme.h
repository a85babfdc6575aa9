/* theme.h: the page templates and stylesheet, built in or the project's. */
#ifndef LOGDOWN_THEME_H
#define LOGDOWN_THEME_H

#include <stdbool.h>

#include "base/diag.h"
#include "base/embedded.h"
#include "data/value.h"

struct buf;
struct mustache;

struct theme {
	char *root;         /* ROOT: templates may not lead outside it */
	char *dir;          /* ROOT/templates */
	char *page_file;    /* where page.html came from, for diagnostics */
	char *index_file;
	struct mustache *page;
	struct mustache *index;
	const char *rendering; /* the template being rendered, for warnings */
	char **warned;      /* partials already reported missing */
	size_t nwarned;
	struct diag *d;
	bool page_ready;    /* theme_prepare_page() accepted the page template */
};

/* Loads page.html and index.html from ROOT/templates when the project
 * has them, else the built-in ones, and compiles them.  Template errors
 * are reported through d; returns false then.  Free with theme_free(). */
bool theme_load(struct theme *t, const char *root, struct diag *d);
void theme_free(struct theme *t);

/* Renders template m (t->page or t->index) with data, appending to out.
 * Partials {{> name}} come from templates/partials/name.html, then
 * templates/name.html; a missing one is a warning, once. */
bool theme_render(struct theme *t, struct mustache *m, const struct value *data, struct buf *out);

/* Loads and compiles every partial the page template could include
 * (mustache_prepare()), quietly.  True when all were there and compiled:
 * pages may then be rendered by theme_render_page() on any thread.
 * False, with nothing reported and the theme as it was, when one is
 * missing, leads outside the project or does not compile: theme_render()
 * then reports it, once, as ever. */
bool theme_prepare_page(struct theme *t);
/* Renders the page template with data, appending to out, on any thread,
 * after theme_prepare_page() returned true: it reads t and t->page only.
 * What a render may still report (a page past limit template_bytes) goes
 * to d. */
bool theme_render_page(const struct theme *t, const struct value *data, struct buf *out,
		       struct diag *d);

#endif
