/* site.c: the build, from a project folder to a site folder. */
#include "site.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fsutil.h"
#include "markdown.h"
#include "outdir.h"
#include "report.h"
#include "theme.h"
#include "util.h"
#include "version.h"

#define GENERATOR "logdown " LOGDOWN_VERSION

/* Files of a report bundle copied beside its page, so that Markdown
 * like ![plot](loss.png) works.  Result files are not among them: the
 * result stage copies the ones a report uses. */
static const char *const resource_exts[] = {
	".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".pdf", ".mp4", ".webm", NULL,
};

struct build {
	const struct build_opts *opts;
	struct diag *d;
	struct config config;
	struct theme theme;
	struct outdir out;
	bool writing;
	bool io_failed;
	char *content;        /* ROOT/content */
	struct report *reports;
	size_t nreports;
	size_t ndrafts;        /* left out */
	char **resources;      /* bundle files to copy: source, then output path */
	size_t nresources;
};

static bool is_resource(const char *name)
{
	for (size_t i = 0; resource_exts[i]; i++)
		if (str_has_suffix(name, resource_exts[i]))
			return true;
	return false;
}

static void add_resource(struct build *b, const char *src, const char *dst)
{
	b->resources = xrealloc(b->resources, (b->nresources + 2) * sizeof *b->resources);
	b->resources[b->nresources++] = xstrdup(src);
	b->resources[b->nresources++] = xstrdup(dst);
}

/* Collects the resources under a bundle's folder; rel_out is where they
 * go in the site. */
static void scan_bundle(struct build *b, const char *dir, const char *rel_out)
{
	size_t n;
	char **names = dir_list(dir, &n);
	if (!names)
		return;
	for (size_t i = 0; i < n; i++) {
		if (names[i][0] == '.')
			continue;
		char *path = path_join(dir, names[i]);
		char *out = path_join(rel_out, names[i]);
		if (is_dir(path))
			scan_bundle(b, path, out);
		else if (is_resource(names[i]))
			add_resource(b, path, out);
		free(path);
		free(out);
	}
	strv_free(names);
}

static void add_report(struct build *b, const char *path, const char *rel)
{
	char *slug = report_slug(rel);
	if (!slug) {
		diag_error(b->d, loc_line(path, 0),
			   "content/index.md would be the site index, which logdown writes itself: "
			   "move this report to content/<name>.md");
		return;
	}
	for (size_t i = 0; i < b->nreports; i++) {
		if (strcmp(b->reports[i].slug, slug) == 0) {
			diag_error(b->d, loc_line(path, 0),
				   "this report and %s both become %s/index.html: rename one",
				   b->reports[i].path, slug);
			free(slug);
			return;
		}
	}
	b->reports = xrealloc(b->reports, (b->nreports + 1) * sizeof *b->reports);
	struct report *r = &b->reports[b->nreports];
	bool ok = report_load(r, path, slug, b->d);
	free(slug);
	if (!ok || (r->draft && !b->opts->drafts)) {
		b->ndrafts += ok;
		report_free(r, b->d);
		return;
	}
	b->nreports++;
}

/* Finds the reports under dir (rel: its path below content/).  A folder
 * holding index.md is one report, a bundle: its other files are the
 * report's own, not reports. */
static void discover(struct build *b, const char *dir, const char *rel)
{
	size_t n;
	char **names = dir_list(dir, &n);
	if (!names) {
		diag_error(b->d, loc_line(dir, 0), "cannot list: %s", strerror(errno));
		b->io_failed = true;
		return;
	}
	char *index = path_join(dir, "index.md");
	if (*rel && is_file(index)) {
		char *rel_md = path_join(rel, "index.md");
		size_t before = b->nreports;
		add_report(b, index, rel_md);
		if (b->nreports > before)
			b->reports[before].bundle = true;
		if (b->nreports > before)
			scan_bundle(b, dir, b->reports[before].slug);
		free(rel_md);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (names[i][0] == '.')
			continue;
		char *path = path_join(dir, names[i]);
		char *child_rel = *rel ? path_join(rel, names[i]) : xstrdup(names[i]);
		if (is_dir(path))
			discover(b, path, child_rel);
		else if (str_has_suffix(names[i], ".md"))
			add_report(b, path, child_rel);
		free(path);
		free(child_rel);
	}
out:
	free(index);
	strv_free(names);
}

static struct value *site_value(const struct config *c)
{
	struct value *s = value_new(VALUE_MAP);
	value_set_str(s, "title", c->title);
	value_set_str(s, "author", c->author);
	value_set_str(s, "base_url", c->base_url);
	value_set_str(s, "paper", c->paper);
	return s;
}

static void set_report_fields(struct value *v, const struct report *r)
{
	value_set_str(v, "title", *r->title ? r->title : r->slug);
	value_set_str(v, "author", r->author);
	value_set_str(v, "date", r->date);
	value_set_str(v, "summary", r->summary);
	value_set_str(v, "slug", r->slug);
	value_set(v, "draft", value_bool(r->draft));
}

static void write_file(struct build *b, const char *rel, const char *data, size_t len)
{
	if (b->writing && !outdir_write(&b->out, rel, data, len, b->d))
		b->io_failed = true;
}

/* Markdown, then the page template, then the file. */
static void render_report(struct build *b, struct report *r)
{
	r->html = markdown_to_html(r->text + r->body_off, r->len - r->body_off);

	struct value *data = value_new(VALUE_MAP);
	value_set(data, "site", site_value(&b->config));
	char *root = report_root_prefix(r->slug);
	value_set_str(data, "root", root);
	free(root);
	set_report_fields(data, r);
	value_set_str(data, "content", r->html);
	value_set_str(data, "generator", GENERATOR);

	struct buf page = BUF_INIT;
	if (theme_render(&b->theme, b->theme.page, data, &page)) {
		char *rel = path_join(r->slug, "index.html");
		write_file(b, rel, page.data, page.len);
		free(rel);
	}
	buf_free(&page);
	value_free(data);
}

/* Newest first; undated reports last; then by slug, so the order never
 * depends on the file system. */
static int cmp_newest(const void *pa, const void *pb)
{
	const struct report *a = pa, *b = pb;
	int c = strcmp(b->date, a->date);
	return c ? c : strcmp(a->slug, b->slug);
}

static void render_index(struct build *b)
{
	struct value *data = value_new(VALUE_MAP);
	value_set(data, "site", site_value(&b->config));
	value_set_str(data, "root", "");
	value_set_str(data, "title", b->config.title);
	value_set_str(data, "generator", GENERATOR);
	struct value *list = value_new(VALUE_LIST);
	for (size_t i = 0; i < b->nreports; i++) {
		const struct report *r = &b->reports[i];
		struct value *item = value_new(VALUE_MAP);
		set_report_fields(item, r);
		char *url = xasprintf("%s/", r->slug);
		value_set_str(item, "url", url);
		free(url);
		value_push(list, item);
	}
	value_set(data, "reports", list);
	struct buf page = BUF_INIT;
	if (theme_render(&b->theme, b->theme.index, data, &page))
		write_file(b, "index.html", page.data, page.len);
	buf_free(&page);
	value_free(data);
}

static void copy_static(struct build *b)
{
	const struct embedded_file *css = embedded_find("static/logdown.css");
	if (css)
		write_file(b, "static/logdown.css", css->data, css->len);
	char *src = path_join(b->opts->root, "static");
	char *root = path_real(b->opts->root);
	if (b->writing && root && is_dir(src)) {
		char *dst = path_join(b->out.staging, "static");
		char *failed = NULL;
		if (!copy_tree(src, dst, root, &failed)) {
			struct loc at = loc_line(failed ? failed : src, 0);
			if (errno == EXDEV) {
				diag_error(b->d, at,
					   "a link to a file outside the project: logdown does not "
					   "publish it (copy the file into static/ instead)");
			} else {
				diag_error(b->d, at, "cannot copy: %s", strerror(errno));
				b->io_failed = true;
			}
		}
		free(failed);
		free(dst);
	}
	free(root);
	free(src);
}

static void copy_resources(struct build *b)
{
	for (size_t i = 0; b->writing && i < b->nresources; i += 2) {
		char *dst = path_join(b->out.staging, b->resources[i + 1]);
		char *dir = path_dirname(dst);
		if (!mkdir_p(dir) || !file_copy(b->resources[i], dst)) {
			diag_error(b->d, loc_line(b->resources[i], 0), "cannot copy: %s",
				   strerror(errno));
			b->io_failed = true;
		}
		free(dir);
		free(dst);
	}
}

static void build_free(struct build *b)
{
	for (size_t i = 0; i < b->nreports; i++)
		report_free(&b->reports[i], b->d);
	free(b->reports);
	for (size_t i = 0; i < b->nresources; i++)
		free(b->resources[i]);
	free(b->resources);
	free(b->content);
	theme_free(&b->theme);
	config_free(&b->config);
}

int site_build(const struct build_opts *opts, struct diag *d)
{
	struct build b = {.opts = opts, .d = d};
	int rc = EXIT_OK;

	/* load sources */
	if (!is_dir(opts->root)) {
		diag_error(d, loc_line(opts->root, 0), "not a project folder: %s",
			   path_exists(opts->root) ? "not a folder" : strerror(ENOENT));
		return EXIT_USAGE;
	}
	config_load(&b.config, opts->root, d);
	b.content = path_join(opts->root, "content");
	if (!is_dir(b.content)) {
		diag_error(d, loc_line(b.content, 0),
			   "no content/ folder: put reports in %s/<name>.md (or run 'logdown new')",
			   b.content);
		build_free(&b);
		return EXIT_USAGE;
	}
	if (opts->write) {
		char *out = opts->output ? xstrdup(opts->output)
					 : path_join(opts->root, b.config.output);
		rc = outdir_begin(&b.out, opts->root, out, d);
		free(out);
		if (rc != EXIT_OK) {
			build_free(&b);
			return rc;
		}
		b.writing = true;
	}
	theme_load(&b.theme, opts->root, d);
	discover(&b, b.content, "");

	/* parse results, resolve directives: later stages */

	/* render and write */
	if (b.theme.page && b.theme.index) {
		for (size_t i = 0; i < b.nreports; i++)
			render_report(&b, &b.reports[i]);
		qsort(b.reports, b.nreports, sizeof *b.reports, cmp_newest);
		render_index(&b);
	}
	copy_static(&b);
	copy_resources(&b);

	if (diag_errors(d) > 0)
		rc = b.io_failed ? EXIT_IO : EXIT_CONTENT;
	if (rc == EXIT_OK && b.writing) {
		if (!outdir_commit(&b.out, d))
			rc = EXIT_IO;
	}
	if (rc == EXIT_OK) {
		fprintf(stderr, "logdown: %s %zu report%s", b.writing ? "built" : "checked",
			b.nreports, b.nreports == 1 ? "" : "s");
		if (b.ndrafts)
			fprintf(stderr, " (%zu draft%s left out; --drafts includes them)", b.ndrafts,
				b.ndrafts == 1 ? "" : "s");
		if (b.writing)
			fprintf(stderr, " into %s", b.out.shown);
		fputc('\n', stderr);
	} else {
		fprintf(stderr, "logdown: %zu error%s; %s\n", diag_errors(d),
			diag_errors(d) == 1 ? "" : "s",
			b.writing ? "the previous output was left as it was" : "nothing was written");
	}
	if (b.writing)
		outdir_end(&b.out);
	build_free(&b);
	return rc;
}
