/* theme.c: the templates a site is rendered with. */
#include "render/theme.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutil.h"
#include "render/mustache.h"
#include "base/util.h"

const struct embedded_file *embedded_find(const char *path)
{
	for (const struct embedded_file *f = embedded_files; f->path; f++)
		if (strcmp(f->path, path) == 0)
			return f;
	return NULL;
}

/* A template that is a link leading outside the project is refused:
 * its text would land in every page.  False after reporting it. */
static bool confined(struct theme *t, const char *path)
{
	if (!path_exists(path) || path_inside(path, t->root))
		return true;
	diag_error(t->d, loc_line(path, 0),
		   "a link leading outside the project: logdown reads nothing there (copy what "
		   "you need into the project)");
	return false;
}

/* Compiles the project's templates/NAME, or the built-in one. */
static struct mustache *load_template(struct theme *t, const char *name, char **file)
{
	char *path = path_join(t->dir, name);
	struct buf b = BUF_INIT;
	struct mustache *m = NULL;
	if (!confined(t, path)) {
		*file = path;
	} else if (file_read(path, &b, NULL)) {
		*file = path;
		diag_add_source(t->d, path, buf_data(&b), b.len);
		m = mustache_compile(path, buf_data(&b), b.len, t->d);
		diag_forget_source(t->d, path);
	} else if (errno != ENOENT) {
		diag_error(t->d, loc_line(path, 0), "cannot read template: %s", strerror(errno));
		*file = path;
	} else {
		free(path);
		char *builtin = xasprintf("templates/%s", name);
		const struct embedded_file *f = embedded_find(builtin);
		if (!f) {
			diag_error(t->d, loc_line(builtin, 0), "no built-in template %s", name);
			*file = builtin;
		} else {
			*file = xasprintf("(built-in) %s", builtin);
			m = mustache_compile(*file, f->data, f->len, t->d);
			free(builtin);
		}
	}
	buf_free(&b);
	return m;
}

bool theme_load(struct theme *t, const char *root, struct diag *d)
{
	memset(t, 0, sizeof *t);
	t->d = d;
	t->root = xstrdup(root);
	t->dir = path_join(root, "templates");
	t->page = load_template(t, "page.html", &t->page_file);
	t->index = load_template(t, "index.html", &t->index_file);
	return t->page && t->index;
}

void theme_free(struct theme *t)
{
	mustache_free(t->page);
	mustache_free(t->index);
	free(t->dir);
	free(t->root);
	free(t->page_file);
	free(t->index_file);
	for (size_t i = 0; i < t->nwarned; i++)
		free(t->warned[i]);
	free(t->warned);
	memset(t, 0, sizeof *t);
}

/* True when name was reported already; else remembers it, so that a
 * partial every page includes is reported once. */
static bool warned(struct theme *t, const char *name)
{
	for (size_t i = 0; i < t->nwarned; i++)
		if (strcmp(t->warned[i], name) == 0)
			return true;
	t->warned = xrealloc(t->warned, (t->nwarned + 1) * sizeof *t->warned);
	t->warned[t->nwarned++] = xstrdup(name);
	return false;
}

/* Finds partial name's text into out.  A missing one, or one leading
 * outside the project, is reported once when report is set (the
 * renders); quietly not found when not (theme_prepare_page()). */
static bool find_partial(struct theme *t, const char *name, struct buf *out, bool report)
{
	/* Partials live in templates/ only: no absolute paths, no "..". */
	bool safe = *name && name[0] != '/' && !strstr(name, "..");
	static const char *const places[] = {"partials/%s.html", "%s.html"};
	for (size_t i = 0; safe && i < ARRAY_LEN(places); i++) {
		char *rel = xasprintf(places[i], name);
		char *path = path_join(t->dir, rel);
		bool outside = path_exists(path) && !path_inside(path, t->root);
		bool found = !outside && file_read(path, out, NULL);
		if (outside && report && !warned(t, name))
			confined(t, path);
		free(rel);
		free(path);
		if (found)
			return true;
		if (outside)
			return false;
	}
	char *builtin = xasprintf("templates/%s.html", name);
	const struct embedded_file *f = embedded_find(builtin);
	free(builtin);
	if (safe && f) {
		buf_put(out, f->data, f->len);
		return true;
	}
	if (!report || warned(t, name))
		return false;
	if (safe)
		diag_warning(t->d, loc_line(t->rendering, 0),
			     "template '%s' for {{> %s}} or {{< %s}} not found (looked for "
			     "%s/partials/%s.html and %s/%s.html)",
			     name, name, name, t->dir, name, t->dir, name);
	else
		diag_warning(t->d, loc_line(t->rendering, 0),
			     "template name '%s' leaves %s: it renders as nothing", name,
			     t->dir);
	return false;
}

static bool load_partial(void *ctx, const char *name, struct buf *out)
{
	return find_partial(ctx, name, out, true);
}

static bool probe_partial(void *ctx, const char *name, struct buf *out)
{
	return find_partial(ctx, name, out, false);
}

bool theme_prepare_page(struct theme *t)
{
	t->page_ready = mustache_prepare(t->page, probe_partial, t);
	return t->page_ready;
}

bool theme_render_page(const struct theme *t, const struct value *data, struct buf *out,
		       struct diag *d)
{
	assert(t->page_ready);
	return mustache_render_prepared(t->page, data, out, d);
}

bool theme_render(struct theme *t, struct mustache *m, const struct value *data, struct buf *out)
{
	t->rendering = m == t->index ? t->index_file : t->page_file;
	return mustache_render(m, data, load_partial, t, out, t->d);
}
