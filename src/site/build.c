/* build.c: the build, from a project folder to a site folder (site.h).
 * It loads the sources, finds the reports (discover.c), loads each
 * report's runs and renders its body on -j threads, reporting in report
 * order; then writes each page, its figures, log pages and PDF, the
 * index, static/ and the bundles' files, and swaps the new output in.
 * What may be reused from the previous output is reuse.c's to say, and
 * which images a page would show broken images.c's. */
#define _GNU_SOURCE /* memmem(), sched_getaffinity() */
#include "site_int.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "base/version.h"
#include "data/memo.h"
#include "parse/logparse.h"
#include "parse/runs.h"
#include "render/html.h"
#include "render/pdf.h"
#include "resolve/cite.h"
#include "resolve/claim.h"
#include "render/toc.h"
#include "resolve/doc.h"
#include "resolve/numlint.h"
#include "resolve/provenance.h"
#include "site/manifest.h"
#include "site/valuediff.h"

#define GENERATOR "logdown " LOGDOWN_VERSION

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

/* The names a report's expressions see: every single run and every
 * member of a run set; and the sets themselves, for a table's rows.
 * Each run and set is marked when something resolved to it. */
struct report_scope {
	const struct run **runs;
	bool *runs_used;
	size_t nruns;
	const char **set_names;
	const char **set_files, **set_last; /* a split file's, else NULL */
	const struct run *const **set_runs;
	size_t *set_counts;
	bool *sets_used;
	size_t nsets;
	struct failed_use *failed_use; /* parallel to the runs' failed */
};

static void scope_collect(struct report_scope *s, const struct report_runs *rr)
{
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < rr->count; i++) {
		const struct runset *set = &rr->sets[i];
		for (size_t j = 0; j < set->count; j++) {
			s->runs = xrealloc(s->runs, (s->nruns + 1) * sizeof *s->runs);
			s->runs[s->nruns++] = set->runs[j];
		}
		if (!set->is_set)
			continue;
		s->set_names = xrealloc(s->set_names, (s->nsets + 1) * sizeof *s->set_names);
		s->set_runs = xrealloc(s->set_runs, (s->nsets + 1) * sizeof *s->set_runs);
		s->set_counts = xrealloc(s->set_counts, (s->nsets + 1) * sizeof *s->set_counts);
		s->set_names[s->nsets] = set->name;
		s->set_files = xrealloc(s->set_files, (s->nsets + 1) * sizeof *s->set_files);
		s->set_last = xrealloc(s->set_last, (s->nsets + 1) * sizeof *s->set_last);
		s->set_files[s->nsets] = set->whole ? set->file : NULL;
		s->set_last[s->nsets] =
			set->whole && set->count ? run_name(set->runs[set->count - 1]) : NULL;
		s->set_runs[s->nsets] = (const struct run *const *)set->runs;
		s->set_counts[s->nsets] = set->count;
		s->nsets++;
	}
	s->runs_used = xcalloc(s->nruns + 1, sizeof *s->runs_used);
	s->sets_used = xcalloc(s->nsets + 1, sizeof *s->sets_used);
	s->failed_use = xcalloc(rr->nfailed + 1, sizeof *s->failed_use);
}

static void scope_release(struct report_scope *s, size_t nfailed)
{
	failed_use_clear(s->failed_use, nfailed);
	free(s->failed_use);
	free(s->runs);
	free(s->runs_used);
	free(s->sets_used);
	free(s->set_names);
	free(s->set_files);
	free(s->set_last);
	free(s->set_runs);
	free(s->set_counts);
}

/* A run no value, table or excerpt resolved to is a warning: a
 * forgotten file, or a reference that was meant to be there.  What
 * counts is what the expressions and directives actually resolved (rs,
 * marked while the body was resolved and rendered), so a name in a code
 * span or in a comment does not.  A run set is used when it or one of
 * its runs is.  rs lists the runs and sets in the order of r->runs.
 * Not after an error in the body, nor after a use of a run that did
 * not load: a reference that failed resolved nothing, and "never used"
 * would send the reader after the wrong problem. */
static void warn_unused_runs(struct diag *d, const struct report *r,
			     const struct report_scope *rs)
{
	const struct value *spec = value_get(r->meta, "runs");
	size_t run = 0, set_no = 0;
	for (size_t i = 0; i < r->runs.count; i++) {
		const struct runset *set = &r->runs.sets[i];
		bool used = set->is_set && rs->sets_used[set_no];
		for (size_t j = 0; j < set->count; j++)
			used = rs->runs_used[run + j] || used;
		run += set->count;
		set_no += set->is_set;
		long k = value_index(spec, set->name);
		if (!used && k >= 0)
			diag_warning(d, spec->key_locs[k],
				     "run '%s' is never used: no value, table or excerpt names it",
				     set->name);
	}
}

/* A run that did not load has its error above (the load's); each place
 * that names it would say "run 'x' is not defined" and send the reader
 * after the wrong problem.  The report gets one note a run instead, at
 * the first place it is used in the document, in that order.  True when
 * there was one: a reference failed, and resolved nothing. */
static bool note_failed_runs(struct diag *d, const struct report_runs *rr,
			     const struct report_scope *rs)
{
	size_t n = rr->nfailed, noted = 0;
	bool *done = xcalloc(n + 1, sizeof *done);
	for (;;) {
		size_t pick = n;
		for (size_t i = 0; i < n; i++) {
			const struct failed_use *u = &rs->failed_use[i];
			if (!u->used || done[i])
				continue;
			const struct failed_use *p = pick < n ? &rs->failed_use[pick] : NULL;
			if (!p || u->at.line < p->at.line ||
			    (u->at.line == p->at.line && u->at.col < p->at.col))
				pick = i;
		}
		if (pick == n)
			break;
		done[pick] = true;
		noted++;
		diag_note(d, rs->failed_use[pick].at, "run '%s' did not load (above)",
			  rr->failed[pick]);
	}
	free(done);
	return noted > 0;
}

struct figure_sink {
	struct build *b;
	struct job *job;
	const char *slug;
};

static bool write_figure(void *ctx, const char *name, const char *ext, const char *data,
			 size_t len)
{
	struct figure_sink *fs = ctx;
	char *rel = xasprintf("%s/figures/%s.%s", fs->slug, name, ext);
	bool ok = outdir_write(&fs->b->out, rel, data, len, fs->job->render_d);
	free(rel);
	if (!ok)
		fs->job->io_failed = true;
	return ok;
}

/* The report's PDF beside its page, laid out from the same document.
 * Any thread, as render_body(). */
static void write_pdf(struct build *b, const struct report *r, struct doc *doc, struct job *job)
{
	struct pdf_meta m = {r->title,		r->author, r->date, r->summary, b->config.paper,
			     r->dir, b->root_real, b->config.base_url, r->slug,
			     /* a contents list only when asked for: the PDF has
			      * its outline */
			     (r->toc >= 0 ? r->toc : b->config.toc) == 1,
			     *job->manifest_hash ? job->manifest_hash : NULL};
	struct buf pdf = BUF_INIT;
	if (pdf_render(doc, &m, &pdf, job->render_d)) {
		char *rel = path_join(r->slug, "report.pdf");
		/* check --pdf lays it out for its warnings, writes nothing */
		if (b->writing && !outdir_write(&b->out, rel, pdf.data, pdf.len, job->render_d))
			job->io_failed = true;
		free(rel);
	}
	buf_free(&pdf);
}

/* A relative claim's committed value: in the baseline's entry of the
 * report. */
struct claim_lookup {
	const struct build *b;
	const char *slug;
};

static bool find_committed(void *ctx, const char *expr, size_t occurrence, double *num,
			   char **why)
{
	const struct claim_lookup *l = ctx;
	return manifest_claim_base(l->b->claim_base, l->b->claim_base_dir, l->slug, expr,
				   occurrence, num, why);
}

/* The keeper of a report's log pages (provenance_keeper): the previous
 * output's copy kept (keepcopy.c), else the copy made early put in
 * place (earlycopy.c); false: provenance_write() copies the file. */
struct keep_or_take {
	struct build *b;
	struct earlycopy *early;
};

static bool keep_or_take(void *ctx, const char *rel, int fd, const char *real)
{
	struct keep_or_take *kt = ctx;
	return keepcopy_keep(kt->b, rel, fd, real) || earlycopy_take(kt->early, kt->b, rel, fd);
}

/* Resolve the directives and values, render Markdown into r->html,
 * then write the figures and the log pages.  Any thread: everything it
 * reports goes to job->render_d. */
static void render_body(struct build *b, struct report *r, struct job *job)
{
	struct diag *d = job->render_d;
	size_t errors_before = diag_errors(d);
	struct report_scope rs;
	scope_collect(&rs, &r->runs);
	struct scope scope = {
		.runs = rs.runs,
		.nruns = rs.nruns,
		.set_names = rs.set_names,
		.set_counts = rs.set_counts,
		.nsets = rs.nsets,
		.set_files = rs.set_files,
		.set_last = rs.set_last,
		.runs_used = rs.runs_used,
		.failed = (const char *const *)r->runs.failed,
		.failed_use = rs.failed_use,
		.nfailed = r->runs.nfailed,
	};
	struct directive_ctx ctx = {
		.scope = &scope,
		.set_names = rs.set_names,
		.set_runs = rs.set_runs,
		.set_counts = rs.set_counts,
		.nsets = rs.nsets,
		.sets_used = rs.sets_used,
		.prov = provenance_new(r->dir, b->root_real),
		.d = d,
		.root = b->opts->root,
		.root_real = b->root_real,
	};
	/* the big logs' raw copies, on threads beside the values and the
	 * charts (earlycopy.c): started as report_key() named the files,
	 * else now */
	earlycopy_start(&job->early, b, r);
	struct figure_sink sink = {b, job, r->slug};
	if (b->writing) {
		ctx.write_figure = write_figure;
		ctx.figure_ctx = &sink;
	}
	ctx.figure_formats = FIGURE_SVG | b->opts->figures;
	ctx.cites = cites_new(r->meta, b->config.raw, r->dir, b->opts->root, d);
	ctx.number_sections = r->number_sections >= 0 ? r->number_sections
						      : b->config.number_sections;
	struct claim_lookup lookup = {b, r->slug};
	struct claim_base base = {find_committed, &lookup};
	ctx.expect = value_get(r->meta, "expect");
	ctx.claim_base = &base;
	ctx.claims_warn = b->opts->no_claims;
	/* values and charts kept by their inputs' keys: a prose edit reads
	 * no series again (resolve/memoize.h) */
	struct memo *memo = job->keyed ? memo_open(b->disk, r->path) : NULL;
	ctx.memo = memo;
	ctx.memo_key = job->memo_key;
	ctx.memo_charts = !b->opts->pdf;
	struct doc *doc = doc_resolve(r->text + r->body_off, r->len - r->body_off, r->path,
				      r->body_line - 1, &ctx);
	/* what cmark-gfm allocates as the tree is read, from the tree's
	 * arena until the PDF (which lays out on its own) */
	struct gfm_arena *heap = doc_memory_begin(doc);
	r->html = html_doc(doc); /* inline values are resolved as it shows them */
	if (b->opts->lint && !(r->allow_numbers >= 0 ? r->allow_numbers : b->config.allow_numbers)) {
		struct numlint *nl = numlint_new(scope.runs, scope.nruns);
		numlint_doc(nl, doc_root(doc), r->text + r->body_off, r->len - r->body_off, r->path,
			    r->body_line - 1, d);
		numlint_free(nl);
	}
	r->toc_html = (r->toc >= 0 ? r->toc : b->config.toc) != 0 ? toc_html(doc) : xstrdup("");
	search_report(b, r, doc, job);
	struct manifest_ctx mc = {b->opts->root, b->root_real, b->disk, b->parsers, d};
	job->manifest = manifest_report(&mc, r, doc);
	/* made here, before the page and the PDF show it; a reused page
	 * shows its entry's, which the cache key covers */
	if (b->config.footer_hash)
		manifest_entry_hash(job->manifest, job->manifest_hash);
	bool noted = note_failed_runs(d, &r->runs, &rs);
	check_images(b, r, doc, job);
	doc_memory_end(heap);
	if (b->opts->pdf)
		write_pdf(b, r, doc, job);
	doc_free(doc);
	memo_close(memo);
	cites_free(ctx.cites);
	if (diag_errors(d) == errors_before && !noted)
		warn_unused_runs(d, r, &rs);
	char *root = report_root_prefix(r->slug);
	provenance_set_title(ctx.prov, *r->title ? r->title : r->slug);
	struct keep_or_take kt = {b, &job->early};
	const struct provenance_keeper keeper = {keep_or_take, &kt};
	provenance_set_keeper(ctx.prov, &keeper);
	provenance_set_cache(ctx.prov, b->disk);
	if (!provenance_write(ctx.prov, b->writing ? &b->out : NULL, r->slug, root, d))
		job->io_failed = true;
	earlycopy_end(&job->early);
	free(root);
	provenance_free(ctx.prov);
	scope_release(&rs, r->runs.nfailed);
}

/* The page template around r->html, written to SLUG/index.html.  With
 * a page template whose partials theme_prepare_page() loaded, any
 * thread, reporting to job->render_d after the body's diagnostics;
 * else one thread, to b->d (the theme remembers which missing partials
 * it reported). */
static void render_page(struct build *b, struct report *r, struct job *job)
{
	bool shared = b->theme.page_ready;
	char *root = report_root_prefix(r->slug);
	struct value *data = value_new(VALUE_MAP);
	value_set(data, "site", site_value(&b->config));
	value_set_str(data, "root", root);
	free(root);
	set_report_fields(data, r);
	value_set_str(data, "content", r->html);
	if (r->toc_html && *r->toc_html)
		value_set_str(data, "toc", r->toc_html);
	if (b->opts->pdf)
		value_set_str(data, "pdf", "report.pdf");
	value_set_str(data, "generator", GENERATOR);
	value_set_str(data, "manifest_hash", job->manifest_hash);

	struct buf page = BUF_INIT;
	if (shared ? theme_render_page(&b->theme, data, &page, job->render_d)
		   : theme_render(&b->theme, b->theme.page, data, &page)) {
		char *rel = path_join(r->slug, "index.html");
		if (!shared)
			write_file(b, rel, page.data, page.len);
		else if (b->writing && !outdir_write(&b->out, rel, page.data, page.len, job->render_d))
			job->io_failed = true;
		free(rel);
	}
	buf_free(&page);
	value_free(data);
	if (shared) {
		/* written: the page's HTML is not kept to the end */
		free(r->html);
		free(r->toc_html);
		r->html = r->toc_html = NULL;
		job->page_written = true;
	}
}

/* Newest first; undated reports last; then by slug, so the order never
 * depends on the file system. */
static int cmp_newest(const void *pa, const void *pb)
{
	const struct report *a = *(const struct report *const *)pa,
			    *b = *(const struct report *const *)pb;
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
	/* sorted apart: the index's thread reads b->reports meanwhile */
	const struct report **order = xcalloc(b->nreports + 1, sizeof *order);
	for (size_t i = 0; i < b->nreports; i++)
		order[i] = &b->reports[i];
	if (b->nreports > 1)
		qsort(order, b->nreports, sizeof *order, cmp_newest);
	for (size_t i = 0; i < b->nreports; i++) {
		const struct report *r = order[i];
		struct value *item = value_new(VALUE_MAP);
		set_report_fields(item, r);
		/* index.html spelled out: a folder link opens a listing from
		 * file:// */
		char *url = xasprintf("%s/index.html", r->slug);
		value_set_str(item, "url", url);
		free(url);
		value_push(list, item);
	}
	value_set(data, "reports", list);
	free(order);
	struct buf page = BUF_INIT;
	if (theme_render(&b->theme, b->theme.index, data, &page))
		write_file(b, "index.html", page.data, page.len);
	buf_free(&page);
	value_free(data);
}

/* Copies the project's file src to rel in the site, through one
 * descriptor opened confined to the project and checked there
 * (open_confined()): a file swapped for a link out of the project since
 * the walk found it copies nothing, and is an error.  False after a
 * diagnostic; *io set when the copy itself failed. */
static bool copy_confined(struct build *b, const char *rel, const char *src, bool *io)
{
	int fd = open_confined(src, b->root_real, NULL);
	if (fd < 0) {
		if (errno == EXDEV || errno == ELOOP)
			diag_error(b->d, loc_line(src, 0),
				   "a link leading outside the project: logdown reads nothing there "
				   "(copy what you need into the project)");
		else
			diag_error(b->d, loc_line(src, 0), "cannot read: %s", open_error(errno));
		return false;
	}
	bool ok = outdir_copy_fd(&b->out, rel, fd, src, b->d);
	close(fd);
	if (!ok)
		*io = true;
	return ok;
}

/* Walks static/ as the reports are walked (links confined, loops and
 * special files reported), copying each file when writing: `check`
 * finds the same problems as `build`. */
static void walk_static(struct build *b, const char *dir, const char *rel)
{
	size_t n;
	char **names = walk_enter(b, dir, strchr(rel, '/') != NULL, false, &n, NULL);
	if (!names)
		return;
	for (size_t i = 0; i < n; i++) {
		char *path = path_join(dir, names[i]);
		char *out = path_join(rel, names[i]);
		enum entry kind = classify(b, path);
		if (kind == ENTRY_DIR)
			walk_static(b, path, out);
		else if (kind == ENTRY_FILE && b->writing)
			copy_confined(b, out, path, &b->io_failed);
		free(path);
		free(out);
	}
	walk_leave(b, names);
}

static void copy_static(struct build *b)
{
	static const char *const files[] = {"static/logdown.css", "static/toc.js", "static/copy.js",
					    "static/search.js"};
	for (size_t i = 0; i < ARRAY_LEN(files); i++) {
		const struct embedded_file *f = embedded_find(files[i]);
		if (f)
			write_file(b, files[i], f->data, f->len);
	}
	/* The math font, for every browser to draw the same glyphs; one
	 * loads it only for a page with math. */
	const struct embedded_file *font = embedded_find(EMBEDDED_MATH_FONT);
	if (font)
		write_file(b, "static/math.otf", font->data, font->len);
	char *src = path_join(b->opts->root, "static");
	if (path_exists(src) && classify(b, src) == ENTRY_DIR)
		walk_static(b, src, "static");
	free(src);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Does rel lie in a folder that moves over on commit? */
static bool in_moved(const struct build *b, const char *rel)
{
	if (!b->nmoved)
		return false;
	char *prefix = xstrdup(rel);
	bool found = false;
	for (char *s = strchr(prefix, '/'); s && !found; s = strchr(s + 1, '/')) {
		*s = '\0';
		const char *key = prefix;
		found = bsearch(&key, b->moved, b->nmoved, sizeof *b->moved, cmp_str) != NULL;
		*s = '/';
	}
	free(prefix);
	return found;
}

static void copy_resources(struct build *b)
{
	for (size_t i = 0; b->writing && i < b->nresources; i += 2)
		if (!in_moved(b, b->resources[i + 1]))
			copy_confined(b, b->resources[i + 1], b->resources[i], &b->io_failed);
}

/* check --against: every file a build writes must be in `against` with
 * the same bytes, and `against` must hold nothing else. */
static void compare_trees(struct build *b, const char *built, const char *against, const char *rel)
{
	char *bdir = path_join(built, rel), *adir = path_join(against, rel);
	size_t nb = 0, na = 0;
	char **bn = dir_list(bdir, &nb), **an = dir_list(adir, &na);
	size_t i = 0, j = 0;
	while (bn && (i < nb || j < na)) {
		int c = i >= nb ? 1 : j >= na || !an ? -1 : strcmp(bn[i], an[j]);
		const char *name = c <= 0 ? bn[i] : an[j];
		char *child = path_join(rel, name);
		char *apath = path_join(against, child), *bpath = path_join(built, child);
		if (c < 0) {
			diag_error(b->d, loc_line(apath, 0), "missing: a build writes it (the output "
							     "is stale: rebuild and commit it)");
		} else if (c > 0) {
			diag_error(b->d, loc_line(apath, 0), "a build no longer writes it (the output "
							     "is stale: rebuild and commit it)");
		} else if (is_dir(bpath) && is_dir(apath)) {
			compare_trees(b, built, against, child);
		} else if (is_dir(bpath) != is_dir(apath) || !file_same(bpath, apath)) {
			diag_error(b->d, loc_line(apath, 0), "differs from what a build writes (the "
							     "output is stale: rebuild and commit it)");
		}
		free(apath);
		free(bpath);
		free(child);
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
		if (!an)
			j = na;
	}
	strv_free(bn);
	strv_free(an);
	free(bdir);
	free(adir);
}

/* manifest.json: every report's entry, rendered or reused. */
static void write_manifest(struct build *b, struct job *jobs)
{
	const struct value **entries = xcalloc(b->nreports + 1, sizeof *entries);
	size_t n = 0;
	for (size_t i = 0; i < b->nreports; i++)
		if (jobs[i].manifest || jobs[i].kept_entry)
			entries[n++] = jobs[i].manifest ? jobs[i].manifest : jobs[i].kept_entry;
	struct buf json = BUF_INIT;
	manifest_write(&json, entries, n);
	write_file(b, MANIFEST_FILE, json.data, json.len);
	buf_free(&json);
	free(entries);
}

/* check --against failed: what changed between the committed output's
 * manifest and this build's, values and inputs (valuediff.h), on
 * stderr after the stale files and any other error, whatever the
 * diagnostics' format (a CI log says which numbers moved); with
 * --diagnostics=json, as JSON on stdout.  Without a manifest there, a
 * note. */
static void against_summary(struct build *b, const char *against)
{
	struct diag *quiet = diag_new_deferred(b->d);
	struct value *old = manifest_load(against, against, quiet);
	struct value *now = manifest_load(b->out.staging, b->out.staging, quiet);
	if (!old && now)
		diag_note(b->d, loc_line(against, 0),
			  "it has no readable %s, so what changed cannot be told: rebuild it",
			  MANIFEST_FILE);
	diag_free(quiet);
	if (old && now && b->opts->against_json) {
		struct valuediff_opts o = {.format = VALUEDIFF_JSON};
		valuediff_print(stdout, old, now, &o);
		fflush(stdout);
	} else if (old && now) {
		/* colour only among coloured text diagnostics */
		struct valuediff_opts o = {.format = VALUEDIFF_TEXT,
					   .colour = b->opts->summary &&
						     diag_want_colour(STDERR_FILENO)};
		fprintf(stderr, "what changed since %s was built:\n", against);
		valuediff_print(stderr, old, now, &o);
		if (b->opts->against_github) {
			/* and each change at its place, on the pull request */
			o.format = VALUEDIFF_GITHUB;
			valuediff_print(stderr, old, now, &o);
		}
	}
	value_free(old);
	value_free(now);
}

/* The built-in parsers, the project's parsers/ and the folders
 * site.yaml lists (relative to the project). */
/* The parsers (49 built in, each pattern compiled and JIT-compiled: a
 * seventh of a one-log rebuild of 1,000 reports) are loaded on a thread
 * of their own while the walk finds the reports; what they report is
 * kept apart (diag_new_apart(): the walk registers sources meanwhile)
 * and said where they were loaded before, after the walk's. */
struct parsers_load {
	struct build *b;
	struct diag *d;
	struct parser_set *parsers;
};

static void *load_parsers(void *arg)
{
	struct parsers_load *pl = arg;
	const struct build *b = pl->b;
	size_t n = 0;
	while (b->config.parsers && b->config.parsers[n])
		n++;
	char **extra = xcalloc(n + 1, sizeof *extra);
	for (size_t i = 0; i < n; i++)
		extra[i] = path_join(b->opts->root, b->config.parsers[i]);
	pl->parsers = parsers_load(b->opts->root, extra, pl->d);
	strv_free(extra);
	return NULL;
}

static void build_free(struct build *b)
{
	for (size_t i = 0; i < b->nreports; i++)
		report_free(&b->reports[i], b->d);
	free(b->reports);
	free(b->slug_hashes);
	free(b->slug_slots);
	for (size_t i = 0; i < b->nresources; i++)
		free(b->resources[i]);
	free(b->resources);
	free(b->by_output);
	free(b->content);
	free(b->root_real);
	assert(b->nwalk == 0);
	free(b->walk);
	free(b->slugs);
	free(b->moved);
	theme_free(&b->theme);
	parsers_free(b->parsers);
	config_free(&b->config);
}

/* Names every result file rr loaded to opts->on_input. */
static void report_inputs(const char *slug, const struct report_runs *rr,
			  const struct build_opts *opts)
{
	for (size_t i = 0; i < rr->count; i++)
		for (size_t j = 0; j < rr->sets[i].count; j++)
			if (rr->sets[i].runs[j])
				opts->on_input(opts->input_ctx, slug, run_file(rr->sets[i].runs[j]));
}

struct pool {
	struct build *b;
	size_t n;
	atomic_size_t next;
	void (*fn)(struct build *b, size_t i, void *ctx);
	void *ctx;
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		p->fn(p->b, i, p->ctx);
	}
	return NULL;
}

void run_parallel(struct build *b, size_t n, void (*fn)(struct build *b, size_t i, void *ctx),
		  void *ctx)
{
	struct pool p = {b, n, 0, fn, ctx};
	size_t want = b->opts->jobs ? b->opts->jobs : site_default_jobs();
	if (want > n)
		want = n;
	pthread_t *tids = xcalloc(want ? want : 1, sizeof *tids);
	size_t started = 0;
	for (size_t t = 1; t < want; t++) {
		if (pthread_create(&tids[started], NULL, pool_worker, &p) != 0)
			break; /* fewer threads: the work gets done all the same */
		started++;
	}
	pool_worker(&p);
	for (size_t t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	free(tids);
}

typedef void (*turn_fn)(struct build *b, size_t i, struct job *job);

struct turns {
	struct job *jobs;
	turn_fn fn;
};

static void turn_one(struct build *b, size_t i, void *ctx)
{
	const struct turns *t = ctx;
	t->fn(b, i, &t->jobs[i]);
}

/* Runs fn for every report, on up to opts->jobs threads (the calling
 * one included).  Each turn reports only through its job. */
static void run_turns(struct build *b, struct job *jobs, turn_fn fn)
{
	struct turns t = {jobs, fn};
	run_parallel(b, b->nreports, turn_one, &t);
}

size_t site_default_jobs(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return (size_t)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}

static void load_turn(struct build *b, size_t i, struct job *job)
{
	struct report *r = &b->reports[i];
	bool deferred = false;
	if (!job->reused && b->reports_keyed) {
		/* a big log's raw copy starts as the key names it, beside
		 * its hash and its parse (earlycopy.c) */
		earlycopy_begin(&job->early, b, r);
		/* A report the last build did not make has no page to keep:
		 * a new log of it is hashed by its parse, in the one read of
		 * it (docs/internals.md, "One read of a new log"), and the key
		 * taken after the load. */
		const struct value *entry = prev_entry(b, r->slug);
		job->keyed = report_key(b, r, job, &job->key, entry ? KEY_NOW : KEY_DEFER, &deferred);
		/* the previous build kept the key with the digest of the files
		 * it left in the report's folder: a folder holding anything a
		 * build does not write (a planted link), or other files than
		 * that build left (one planted, one changed since), is
		 * rendered again, and replaced */
		if (job->keyed && entry &&
		    previous_clean(b, r->slug, &job->whole, &job->listing, &job->settled)) {
			/* its manifest entry comes from the previous output
			 * too: it must be the one that build wrote */
			struct cache_key written = manifest_entry_digest(entry);
			struct cache_key listed = report_listed(&job->key, &job->listing, &written);
			job->reused = cache_reports_has(b->prev, r->slug, &listed);
			/* the entry is written again as it is: its digest is this */
			job->entry = written;
			job->entry_known = job->reused;
		}
	} else if (job->reused) {
		/* serve without the cache names it: the same check, against
		 * what the last build left (opts->listings) */
		static const struct cache_key none;
		job->reused =
			previous_clean(b, r->slug, &job->whole, &job->listing, &job->settled);
		if (job->reused && b->opts->listings) {
			struct cache_key written =
				manifest_entry_digest(prev_entry(b, r->slug));
			struct cache_key listed = report_listed(&none, &job->listing, &written);
			job->reused = cache_reports_has(*b->opts->listings, r->slug, &listed);
		}
	}
	if (job->reused)
		return;
	report_runs_load_cached(&r->runs, value_get(r->meta, "runs"), r->dir, b->root_real,
				b->parsers, b->pc, job->load_d);
	/* the rows its parse made: a page of bytes that changed as they
	 * were parsed has no key */
	if (deferred)
		job->keyed = !r->runs.read_changed &&
			     report_key(b, r, job, &job->key, KEY_AGAIN, NULL);
}

/* search_index_write() on a thread of its own (site_build()). */
struct index_job {
	struct build *b;
	struct job *jobs;
	struct diag *d; /* deferred: flushed after the pages' diagnostics */
	bool ok;
};

static void *index_thread(void *arg)
{
	struct index_job *ix = arg;
	ix->ok = search_index_write(ix->b, ix->jobs, ix->d);
	return NULL;
}

static void render_turn(struct build *b, size_t i, struct job *job)
{
	if (job->reused)
		job->kept_entry = prev_entry(b, b->reports[i].slug);
	if (job->reused && job->whole && movable(b, b->reports[i].slug))
		job->move = true;
	else if (job->reused)
		copy_previous(b, b->reports[i].slug, b->reports[i].slug, job);
	else
		render_body(b, &b->reports[i], job);
	if (!job->reused && b->theme.page_ready)
		render_page(b, &b->reports[i], job);
	/* what the next build's listing will hold for it (kept_listed()),
	 * here rather than on one thread after the turns */
	if ((b->reports_keyed || b->opts->listings) && !job->entry_known) {
		job->entry = manifest_entry_digest(job->manifest ? job->manifest : job->kept_entry);
		job->entry_known = true;
	}
}

/* What a job holds, freed: on every thread, since 10,000 reports' search
 * sections and manifest entries are many small blocks. */
static void free_turn(struct build *b, size_t i, struct job *job)
{
	(void)b;
	(void)i;
	earlycopy_end(&job->early); /* (a build that stopped before its pages) */
	value_free(job->manifest);
	diag_free(job->load_d);
	diag_free(job->render_d);
	for (size_t k = 0; k < job->ninputs; k++)
		free(job->inputs[k]);
	free(job->inputs);
	search_doc_free(&job->search);
}

/* The previous output's manifest.json read on a thread of its own while
 * the sources are found and read (1.4 MB of JSON for 1,000 reports:
 * a fifth of a one-log rebuild, alone on its thread before).  Quietly,
 * into a sink of its own that no other thread touches: a missing or
 * damaged one only means rendering all. */
struct prev_load {
	char *dir;
	struct value *manifest;
	struct manifest_slugs *slugs;
};

static void *prev_load_thread(void *arg)
{
	struct prev_load *p = arg;
	struct diag *root = diag_new(stderr, DIAG_TEXT, false);
	struct diag *quiet = diag_new_deferred(root);
	p->manifest = manifest_load(p->dir, p->dir, quiet);
	p->slugs = manifest_slugs_new(p->manifest);
	diag_free(quiet);
	diag_free(root);
	return NULL;
}

static void *prev_free_thread(void *arg)
{
	struct prev_load *p = arg;
	manifest_slugs_free(p->slugs);
	value_free(p->manifest);
	return NULL;
}

/* One build; with a promise (p), its logs' proofs may still be checked
 * while it runs (cache_speculate()), and are joined before it commits:
 * when one failed, p->broken and nothing was committed or kept. */
static int build_once(const struct build_opts *opts, struct diag *d, struct promise *p)
{
	struct build b = {.opts = opts, .d = d, .prev_fd = -1};
	int rc = EXIT_OK;

	/* load sources */
	if (!is_dir(opts->root)) {
		diag_error(d, loc_line(opts->root, 0), "not a project folder: %s",
			   path_exists(opts->root) ? "not a folder" : strerror(ENOENT));
		return EXIT_USAGE;
	}
	b.root_real = path_real(opts->root);
	if (!b.root_real) {
		diag_error(d, loc_line(opts->root, 0), "cannot resolve: %s", strerror(errno));
		return EXIT_IO;
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
	char *scratch = NULL; /* check --against builds here */
	if (opts->against) {
		if (!is_dir(opts->against)) {
			diag_error(d, loc_line(opts->against, 0), "no built site to check against: %s",
				   path_exists(opts->against) ? "not a folder" : strerror(ENOENT));
			build_free(&b);
			return EXIT_USAGE;
		}
		char tmpl[] = "/tmp/logdown-check-XXXXXX";
		if (!mkdtemp(tmpl)) {
			diag_error(d, loc_line(NULL, 0), "cannot make a temporary folder: %s",
				   strerror(errno));
			build_free(&b);
			return EXIT_IO;
		}
		scratch = xstrdup(tmpl);
	}
	if (opts->write || scratch) {
		char *out = scratch ? path_join(scratch, "site")
			    : opts->output ? xstrdup(opts->output)
					   : path_join(opts->root, b.config.output);
		rc = outdir_begin(&b.out, opts->root, out, d);
		free(out);
		if (rc != EXIT_OK) {
			if (scratch)
				remove_tree(scratch);
			free(scratch);
			build_free(&b);
			return rc;
		}
		b.writing = true;
		b.can_move = !scratch;
		if (opts->output_dir && !scratch)
			*opts->output_dir = xstrdup(b.out.final);
	}
	/* the previous manifest, when a reuse may want it, read meanwhile */
	struct prev_load prev = {NULL, NULL, NULL};
	bool prev_started = false;
	pthread_t prev_tid;
	if (b.writing && !scratch && (!opts->no_cache || opts->reuse)) {
		prev.dir = xstrdup(b.out.final);
		prev_started = pthread_create(&prev_tid, NULL, prev_load_thread, &prev) == 0;
	}
	/* with every partial of the page template loaded now, the pages
	 * are written in the render turns, on every thread */
	if (theme_load(&b.theme, opts->root, d))
		theme_prepare_page(&b.theme);
	struct parsers_load pl = {&b, diag_new_apart(d), NULL};
	pthread_t pl_tid;
	bool pl_started = pthread_create(&pl_tid, NULL, load_parsers, &pl) == 0;
	discover(&b, b.content, "");
	index_resources(&b);

	/* parse results (not for a report whose output is reused), then
	 * render; each on opts->jobs threads, reporting in report order */
	if (pl_started)
		pthread_join(pl_tid, NULL);
	else
		load_parsers(&pl);
	b.parsers = pl.parsers;
	diag_flush(pl.d, b.d);
	diag_free(pl.d);
	doc_init();
	b.pc = opts->cache ? opts->cache : (b.own_pc = parse_cache_new());
	if (!opts->no_cache && b.parsers) {
		/* check reads the cache and writes nothing */
		b.disk = cache_open(opts->root, b.writing && !scratch);
		cache_speculate(b.disk, p != NULL);
		b.parsers_key = parse_cache_parsers_key(b.parsers);
		parse_cache_set_disk(b.pc, b.disk, &b.parsers_key);
		if (b.writing && !scratch) {
			b.site_key = site_key(&b, &b.parsers_key);
			b.reports_keyed = true;
			b.prev = cache_reports_load(b.disk, b.out.final);
		}
	}
	size_t parsed0 = parse_cache_parsed(b.pc), reused0 = parse_cache_reused(b.pc),
	       disk0 = parse_cache_from_disk(b.pc), cont0 = parse_cache_continued(b.pc);
	if (prev_started)
		pthread_join(prev_tid, NULL);
	else if (prev.dir)
		prev_load_thread(&prev); /* no thread to be had: here */
	free(prev.dir);
	if (b.writing && !scratch && (b.reports_keyed || opts->reuse)) {
		b.prev_manifest = prev.manifest;
		b.prev_slugs = prev.slugs;
		b.prev_fd = open(b.out.final, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	} else {
		manifest_slugs_free(prev.slugs);
		value_free(prev.manifest);
	}
	/* the committed values of relative claims: quietly, a missing
	 * manifest is said where a claim needs it */
	b.claim_base_dir = opts->against ? xstrdup(opts->against)
			   : opts->output ? xstrdup(opts->output)
					  : path_join(opts->root, b.config.output);
	if (!opts->against && b.prev_manifest) {
		b.claim_base = b.prev_manifest; /* the same folder's, read already */
	} else {
		struct diag *quiet_base = diag_new_deferred(d);
		b.claim_base = manifest_load(b.claim_base_dir, b.claim_base_dir, quiet_base);
		diag_free(quiet_base);
	}
	struct job *jobs = xcalloc(b.nreports ? b.nreports : 1, sizeof *jobs);
	struct index_job ix = {0};
	pthread_t ix_tid;
	bool ix_started = false;
	for (size_t i = 0; i < b.nreports; i++) {
		jobs[i].load_d = diag_new_deferred(d);
		jobs[i].render_d = diag_new_deferred(d);
		jobs[i].reused = reusable(&b, &b.reports[i]);
	}
	run_turns(&b, jobs, load_turn);
	cache_report(b.disk, d);
	for (size_t i = 0; i < b.nreports; i++) {
		struct report *r = &b.reports[i];
		jobs[i].clean = diag_errors(jobs[i].load_d) + diag_warnings(jobs[i].load_d) == 0;
		diag_flush(jobs[i].load_d, d);
		if (opts->on_report)
			opts->on_report(opts->input_ctx, r->slug, r->path,
					r->bundle ? r->dir : NULL, jobs[i].reused);
		if (opts->on_input && !jobs[i].reused) {
			report_inputs(r->slug, &r->runs, opts);
			char **bibs = cites_files(r->meta, b.config.raw, r->dir, opts->root);
			for (size_t k = 0; bibs && bibs[k]; k++)
				opts->on_input(opts->input_ctx, r->slug, bibs[k]);
			strv_free(bibs);
		}
		/* a page reused by key read what its key covers */
		for (size_t k = 0; opts->on_input && jobs[i].reused && k < jobs[i].ninputs; k++)
			opts->on_input(opts->input_ctx, r->slug, jobs[i].inputs[k]);
	}

	/* render and write */
	if (b.theme.page && b.theme.index) {
		b.slugs = xcalloc(b.nreports ? b.nreports : 1, sizeof *b.slugs);
		for (size_t i = 0; i < b.nreports; i++)
			b.slugs[i] = b.reports[i].slug;
		if (b.nreports > 1)
			qsort(b.slugs, b.nreports, sizeof *b.slugs, cmp_str);
		run_turns(&b, jobs, render_turn);
		b.moved = xcalloc(b.nreports ? b.nreports : 1, sizeof *b.moved);
		for (size_t i = 0; i < b.nreports; i++) {
			if (jobs[i].move) {
				outdir_keep(&b.out, b.reports[i].slug);
				b.moved[b.nmoved++] = b.reports[i].slug;
			}
		}
		if (b.nmoved > 1)
			qsort(b.moved, b.nmoved, sizeof *b.moved, cmp_str);
		/* the search index on a thread of its own while this one
		 * writes the pages: on a big site each is a few tenths of a
		 * second that nothing else overlaps */
		ix = (struct index_job){&b, jobs, diag_new_deferred(d), true};
		ix_started = pthread_create(&ix_tid, NULL, index_thread, &ix) == 0;
		for (size_t i = 0; i < b.nreports; i++) {
			struct job *job = &jobs[i];
			job->clean &= diag_errors(job->render_d) + diag_warnings(job->render_d) == 0;
			diag_flush(job->render_d, d);
			if (!job->reused) {
				size_t before = diag_errors(d) + diag_warnings(d);
				if (!job->page_written)
					render_page(&b, &b.reports[i], job);
				job->clean &= diag_errors(d) + diag_warnings(d) == before;
				b.nrendered++;
			} else {
				b.nfrom_cache++;
			}
		}
	}
	/* the copies of reports not rendered (none when every report is):
	 * waited for and removed before the output is committed */
	for (size_t i = 0; i < b.nreports; i++)
		earlycopy_end(&jobs[i].early);
	/* the site's index page, the manifest, static/ and the bundles'
	 * files while the index's thread writes the search index; what
	 * they report comes after what it does, as on one thread */
	struct diag *tail = diag_new_deferred(d);
	b.d = tail;
	b.theme.d = tail;
	if (b.theme.page && b.theme.index)
		render_index(&b);
	write_manifest(&b, jobs);
	copy_static(&b);
	copy_resources(&b);
	b.d = d;
	b.theme.d = d;
	if (b.theme.page && b.theme.index) {
		if (ix_started)
			pthread_join(ix_tid, NULL);
		else
			index_thread(&ix);
		diag_flush(ix.d, d);
		diag_free(ix.d);
		if (!ix.ok)
			b.io_failed = true;
	}
	diag_flush(tail, d);
	diag_free(tail);
	/* the keys of the pages this build wrote cleanly: kept for the next
	 * one once this output is in place, with what their folders hold
	 * then (kept_listed()) */
	struct kept *kept = NULL;
	size_t nkept = 0;
	/* without the cache, serve's reuse (opts->listings) is its watch's
	 * say: each report written, under no key */
	bool listed = b.reports_keyed || (opts->listings && b.writing && !scratch);
	if (listed) {
		kept = xcalloc(b.nreports ? b.nreports : 1, sizeof *kept);
		for (size_t i = 0; i < b.nreports; i++)
			if (b.reports_keyed ? jobs[i].keyed && (jobs[i].reused || jobs[i].clean) &&
						      !jobs[i].io_failed && !jobs[i].shows_others
					    : !jobs[i].io_failed)
				kept[nkept++] = (struct kept){
					b.reports[i].slug, jobs[i].key, jobs[i].move, jobs[i].listing, jobs[i].settled,
					jobs[i].entry_known ? jobs[i].entry
							    : manifest_entry_digest(jobs[i].manifest ? jobs[i].manifest
												    : jobs[i].kept_entry)};
	}
	for (size_t i = 0; i < b.nreports; i++)
		b.io_failed |= jobs[i].io_failed;
	/* the previous manifest (a tree of a hundred values a report, the
	 * claims' base too when read from the same folder) is done with:
	 * freed beside the commit and the listings, not after them */
	struct prev_load gone = {NULL, b.prev_manifest, b.prev_slugs};
	pthread_t gone_tid;
	bool gone_started = false;
	if (b.prev_manifest) {
		if (b.claim_base == b.prev_manifest)
			b.claim_base = NULL;
		b.prev_manifest = NULL;
		b.prev_slugs = NULL;
		gone_started = pthread_create(&gone_tid, NULL, prev_free_thread, &gone) == 0;
		if (!gone_started)
			prev_free_thread(&gone);
	}
	run_turns(&b, jobs, free_turn);
	free(jobs);
	/* Every page is made, nothing is committed or kept yet: the one
	 * place where the proofs left running are joined.  Held, the build
	 * stands as it is; failed, it read a log as holding what it does
	 * not, and is thrown away (site_build() makes it again). */
	if (p && !cache_proofs_join(b.disk))
		p->broken = true;
	else if (p)
		b.d = b.theme.d = d = promise_keep(p);
	if (opts->nreports)
		*opts->nreports = b.nreports;
	if (opts->nrendered)
		*opts->nrendered = b.nrendered;

	if (diag_errors(d) > 0)
		rc = b.io_failed ? EXIT_IO : EXIT_CONTENT;
	if (p && p->broken) {
		/* nothing of it committed, kept or said */
	} else if (rc == EXIT_OK && scratch && !opts->on_built) {
		compare_trees(&b, b.out.staging, opts->against, "");
		if (diag_errors(d) > 0)
			rc = EXIT_CONTENT;
	}
	if ((rc == EXIT_OK || rc == EXIT_CONTENT) && scratch && opts->on_built) {
		opts->on_built(opts->built_ctx, b.out.staging);
	} else if (rc == EXIT_CONTENT && scratch) {
		/* stale files or a content error (a broken claim): either way
		 * the manifest was written, and says which numbers moved */
		against_summary(&b, opts->against);
	} else if (rc == EXIT_OK && b.writing && !scratch) {
		if (!outdir_commit(&b.out, d)) {
			rc = EXIT_IO;
		} else {
			if (kept && b.reports_keyed) {
				struct cache_reports *next = kept_listed(&b, kept, nkept);
				char *marker = path_join(b.out.final, OUTDIR_MARKER);
				cache_reports_save(b.disk, next, b.out.final, marker);
				free(marker);
			} else if (kept) {
				cache_reports_free(*opts->listings);
				*opts->listings = kept_listed(&b, kept, nkept);
			}
			/* after the listings: they may drop an old second name,
			 * which moves a file's change time */
			keepcopy_commit(&b);
		}
		/* every report's runs were loaded or, for a page reused by
		 * key, marked: the rest are old versions and unused files */
		if (rc == EXIT_OK && !opts->reuse) {
			cache_runs_prune(b.disk);
			/* the memos of reports gone (their pages' memos stay) */
			for (size_t i = 0; i < b.nreports; i++)
				cache_memo_keep(b.disk, b.reports[i].path);
			cache_memo_prune(b.disk);
		}
	}
	free(kept);
	if (!(p && p->broken))
		cache_report(b.disk, d);
	if (!opts->summary || (p && p->broken)) {
		/* machine-readable diagnostics: no prose on the same stream */
	} else if (rc == EXIT_OK) {
		fprintf(stderr, "logdown: %s %zu report%s", b.writing && !scratch ? "built" : "checked",
			b.nreports, b.nreports == 1 ? "" : "s");
		if (b.ndrafts)
			fprintf(stderr, " (%zu draft%s left out; --drafts includes them)", b.ndrafts,
				b.ndrafts == 1 ? "" : "s");
		if (scratch)
			fprintf(stderr, "; %s is up to date", opts->against);
		else if (b.writing)
			fprintf(stderr, " into %s", b.out.shown);
		fputc('\n', stderr);
		if (opts->verbose) {
			size_t parsed = parse_cache_parsed(b.pc) - parsed0;
			size_t cached = parse_cache_reused(b.pc) - reused0 +
					parse_cache_from_disk(b.pc) - disk0;
			/* a log that only grew is parsed from where it stopped */
			size_t cont = parse_cache_continued(b.pc) - cont0;
			char more[64] = "";
			if (cont)
				snprintf(more, sizeof more, " (%zu continued)", cont);
			fprintf(stderr,
				"logdown: %zu report%s: %zu rendered, %zu from cache; %zu result "
				"file%s read: %zu parsed%s, %zu from cache\n",
				b.nreports, b.nreports == 1 ? "" : "s", b.nrendered, b.nfrom_cache,
				parsed + cached, parsed + cached == 1 ? "" : "s", parsed, more, cached);
		}
	} else {
		fprintf(stderr, "logdown: %zu error%s; %s\n", diag_errors(d),
			diag_errors(d) == 1 ? "" : "s",
			b.writing && !scratch ? "the previous output was left as it was"
					      : "nothing was written");
	}
	if (b.writing)
		outdir_end(&b.out);
	if (scratch)
		remove_tree(scratch);
	free(scratch);
	build_free(&b);
	/* the reports are gone: the cache may free what they used */
	parse_cache_set_disk(opts->cache, NULL, NULL); /* closed below */
	parse_cache_sweep(opts->cache);
	parse_cache_free(b.own_pc);
	cache_reports_free(b.prev);
	if (gone_started)
		pthread_join(gone_tid, NULL);
	if (b.claim_base != b.prev_manifest)
		value_free(b.claim_base);
	manifest_slugs_free(b.prev_slugs);
	value_free(b.prev_manifest);
	if (b.prev_fd >= 0)
		close(b.prev_fd);
	keepcopy_free(&b);
	free(b.claim_base_dir);
	cache_close(b.disk);
	return rc;
}

int site_build(const struct build_opts *opts, struct diag *d)
{
	/* Without the cache there is no proof to wait for. */
	if (opts->no_cache || getenv("LOGDOWN_TEST_NO_SPECULATE"))
		return build_once(opts, d, NULL);
	struct promise p;
	promise_begin(&p, opts, d);
	int rc = build_once(&p.opts, p.d, &p);
	if (!p.broken) {
		if (p.d) /* it ended before its join (a usage error) */
			promise_keep(&p);
		return rc;
	}
	promise_drop(&p);
	return build_once(opts, d, NULL);
}
