/* site.c: the build, from a project folder to a site folder. */
#define _GNU_SOURCE /* memmem(), sched_getaffinity() */
#include "site/site.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmark-gfm.h>

#include "data/cache.h"
#include "data/config.h"
#include "base/fsutil.h"
#include "parse/logparse.h"
#include "resolve/doc.h"
#include "resolve/provenance.h"
#include "base/outdir.h"
#include "render/html.h"
#include "render/pdf.h"
#include "parse/report.h"
#include "parse/runs.h"
#include "render/theme.h"
#include "base/util.h"
#include "base/version.h"

#define GENERATOR "logdown " LOGDOWN_VERSION

/* Files of a report bundle copied beside its page, so that Markdown
 * like ![plot](loss.png) works.  Result files are not among them: the
 * result stage copies the ones a report uses. */
static const char *const resource_exts[] = {
	".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".pdf", ".mp4", ".webm", NULL,
};

struct output_file;

struct build {
	const struct build_opts *opts;
	struct diag *d;
	struct config config;
	struct theme theme;
	struct parser_set *parsers;
	struct outdir out;
	bool writing;
	bool io_failed;
	char *root_real;      /* the project, canonical: nothing outside is read */
	char *content;        /* ROOT/content */
	struct report *reports;
	size_t nreports, reports_cap;
	uint64_t *slug_hashes; /* str_hash() of each report's slug, while discovering */
	size_t ndrafts;        /* left out */
	char **resources;      /* bundle files to copy: source, then output path */
	size_t nresources, resources_cap;
	struct output_file *by_output; /* the resources by output path (images) */
	char **walk;           /* canonical folders being walked, outermost first */
	size_t nwalk;
	size_t nrendered;
	/* the on-disk cache (NULL with --no-cache) */
	struct cache *disk;
	struct parse_cache *pc;      /* opts->cache, or this build's own */
	struct parse_cache *own_pc;
	struct cache_key site_key;   /* what every page depends on */
	struct cache_key parsers_key; /* the parser set's (runs.h) */
	bool reports_keyed;          /* pages may be reused by key */
	struct cache_reports *prev;  /* the keys the current output was built with */
	size_t nfrom_cache;
	/* reused report folders moved over whole from the previous output
	 * on commit (outdir_move()) rather than linked file by file */
	bool can_move;
	const char **slugs;          /* every report's slug, sorted */
	const char **moved;          /* the moved ones, sorted */
	size_t nmoved;
};

/* Output names the site writes itself: a report may not take them. */
static const char *const reserved_slugs[] = {"static", "index.html", NULL};

static bool is_resource(const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; resource_exts[i]; i++) {
		size_t m = strlen(resource_exts[i]);
		if (n > m && strcasecmp(name + n - m, resource_exts[i]) == 0)
			return true;
	}
	return false;
}

static void add_resource(struct build *b, const char *src, const char *dst)
{
	if (b->nresources + 2 > b->resources_cap) {
		b->resources_cap = b->resources_cap ? 2 * b->resources_cap : 16;
		b->resources = xrealloc(b->resources, b->resources_cap * sizeof *b->resources);
	}
	b->resources[b->nresources++] = xstrdup(src);
	b->resources[b->nresources++] = xstrdup(dst);
}

enum entry { ENTRY_SKIP, ENTRY_FILE, ENTRY_DIR };

/* What the walk makes of path.  Links are followed only where they lead
 * inside the project and not back into a folder being walked (a loop);
 * anything else is reported.  Special files (FIFOs, devices) are left
 * out with a warning: reading them could hang the build. */
static enum entry classify(struct build *b, const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0) {
		diag_error(b->d, loc_line(path, 0), "cannot read: %s", strerror(errno));
		b->io_failed = true;
		return ENTRY_SKIP;
	}
	if (S_ISLNK(st.st_mode)) {
		char *real = path_real(path);
		if (!real) {
			diag_error(b->d, loc_line(path, 0), "a link that leads nowhere: %s",
				   strerror(errno));
			return ENTRY_SKIP;
		}
		bool inside = path_under(real, b->root_real) != NULL;
		bool loop = false;
		for (size_t i = 0; i < b->nwalk && !loop; i++)
			loop = path_under(b->walk[i], real) != NULL;
		free(real);
		if (!inside) {
			diag_error(b->d, loc_line(path, 0),
				   "a link leading outside the project: logdown reads nothing there "
				   "(copy what you need into the project)");
			return ENTRY_SKIP;
		}
		if (stat(path, &st) != 0) {
			diag_error(b->d, loc_line(path, 0), "cannot read: %s", strerror(errno));
			return ENTRY_SKIP;
		}
		if (loop && S_ISDIR(st.st_mode)) {
			diag_error(b->d, loc_line(path, 0),
				   "a link back to a folder that holds it: following it would loop");
			return ENTRY_SKIP;
		}
	}
	if (S_ISDIR(st.st_mode))
		return ENTRY_DIR;
	if (S_ISREG(st.st_mode))
		return ENTRY_FILE;
	diag_warning(b->d, loc_line(path, 0), "not a regular file (a FIFO or device): left out");
	return ENTRY_SKIP;
}

/* Enters folder dir for walking; false when it cannot be listed.  child:
 * dir is an entry of the folder walked last. */
static char **walk_enter(struct build *b, const char *dir, bool child, size_t *n)
{
	char **names = dir_list(dir, n);
	if (!names) {
		diag_error(b->d, loc_line(dir, 0), "cannot list: %s", strerror(errno));
		b->io_failed = true;
		return NULL;
	}
	/* a folder itself (not a link) in the folder walked last: its
	 * canonical path follows from that one's, without realpath()'s
	 * readlink() per component */
	struct stat st;
	const char *base = strrchr(dir, '/');
	char *real = child && b->nwalk > 0 && base && lstat(dir, &st) == 0 && S_ISDIR(st.st_mode)
			     ? path_join(b->walk[b->nwalk - 1], base + 1)
			     : path_real(dir);
	b->walk = xrealloc(b->walk, (b->nwalk + 1) * sizeof *b->walk);
	b->walk[b->nwalk++] = real ? real : xstrdup(dir);
	return names;
}

static void walk_leave(struct build *b, char **names)
{
	strv_free(names);
	free(b->walk[--b->nwalk]);
}

/* Collects the resources under a bundle's folder; rel_out is where they
 * go in the site.  Markdown files there are the report's own files, not
 * reports: a likely mistake at the top of the folder, or an index.md
 * anywhere in it, gets a warning. */
static void scan_bundle(struct build *b, const char *dir, const char *rel_out, const char *index,
			bool top)
{
	size_t n;
	char **names = walk_enter(b, dir, true, &n);
	if (!names)
		return;
	for (size_t i = 0; i < n; i++) {
		if (names[i][0] == '.')
			continue;
		char *path = path_join(dir, names[i]);
		char *out = path_join(rel_out, names[i]);
		enum entry kind = classify(b, path);
		if (kind == ENTRY_DIR) {
			scan_bundle(b, path, out, index, false);
		} else if (kind == ENTRY_FILE && is_resource(names[i])) {
			add_resource(b, path, out);
		} else if (kind == ENTRY_FILE && strcmp(path, index) != 0 &&
			   ((top && str_has_suffix(names[i], ".md")) ||
			    strcmp(names[i], "index.md") == 0)) {
			diag_warning(b->d, loc_line(path, 0),
				     "not a report: the files in the folder of %s belong to that "
				     "report (move this one out of the folder to make it a report)",
				     index);
		}
		free(path);
		free(out);
	}
	walk_leave(b, names);
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
	size_t first = strcspn(slug, "/");
	for (size_t i = 0; reserved_slugs[i]; i++) {
		if (strlen(reserved_slugs[i]) == first && strncmp(slug, reserved_slugs[i], first) == 0) {
			diag_error(b->d, loc_line(path, 0),
				   "this report would be written to %s/, where the site keeps its own "
				   "'%s': rename it", slug, reserved_slugs[i]);
			free(slug);
			return;
		}
	}
	uint64_t h = str_hash(slug);
	for (size_t i = 0; i < b->nreports; i++) {
		if (b->slug_hashes[i] == h && strcmp(b->reports[i].slug, slug) == 0) {
			diag_error(b->d, loc_line(path, 0),
				   "this report and %s both become %s/index.html: rename one",
				   b->reports[i].path, slug);
			free(slug);
			return;
		}
	}
	if (b->nreports == b->reports_cap) {
		b->reports_cap = b->reports_cap ? 2 * b->reports_cap : 16;
		b->reports = xrealloc(b->reports, b->reports_cap * sizeof *b->reports);
		b->slug_hashes = xrealloc(b->slug_hashes, b->reports_cap * sizeof *b->slug_hashes);
	}
	b->slug_hashes[b->nreports] = h;
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
	char *index = path_join(dir, "index.md");
	if (*rel && is_file(index)) {
		char *rel_md = path_join(rel, "index.md");
		size_t before = b->nreports;
		add_report(b, index, rel_md);
		if (b->nreports > before) {
			b->reports[before].bundle = true;
			scan_bundle(b, dir, b->reports[before].slug, index, true);
		}
		free(rel_md);
		free(index);
		return;
	}
	free(index);
	size_t n;
	char **names = walk_enter(b, dir, *rel != '\0', &n);
	if (!names)
		return;
	for (size_t i = 0; i < n; i++) {
		if (names[i][0] == '.')
			continue;
		char *path = path_join(dir, names[i]);
		char *child_rel = *rel ? path_join(rel, names[i]) : xstrdup(names[i]);
		enum entry kind = classify(b, path);
		if (kind == ENTRY_DIR)
			discover(b, path, child_rel);
		else if (kind == ENTRY_FILE && str_has_suffix(names[i], ".md"))
			add_report(b, path, child_rel);
		free(path);
		free(child_rel);
	}
	walk_leave(b, names);
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

/* The names a report's expressions see: every single run and every
 * member of a run set; and the sets themselves, for a table's rows. */
struct report_scope {
	const struct run **runs;
	size_t nruns;
	const char **set_names;
	const struct run *const **set_runs;
	size_t *set_counts;
	size_t nsets;
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
		s->set_runs[s->nsets] = (const struct run *const *)set->runs;
		s->set_counts[s->nsets] = set->count;
		s->nsets++;
	}
}

static void scope_release(struct report_scope *s)
{
	free(s->runs);
	free(s->set_names);
	free(s->set_runs);
	free(s->set_counts);
}

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Does the text name `word` as a whole identifier? */
static bool names_word(const char *text, size_t len, const char *word)
{
	size_t n = strlen(word);
	const char *p = text, *end = text + len;
	while (n && (p = memmem(p, (size_t)(end - p), word, n)) != NULL) {
		bool before = p > text && is_ident_char(p[-1]);
		bool after = p + n < end && is_ident_char(p[n]);
		if (!before && !after)
			return true;
		p += n;
	}
	return false;
}

/* The parts of a body that can name runs: what stands inside {{ }} and
 * the bodies of fenced {directives}. */
static void reference_text(const char *p, const char *end, struct buf *out)
{
	bool in_directive = false, in_fence = false;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *s = p;
		while (s < eol && *s == ' ')
			s++;
		bool fence = eol - s >= 3 && (memcmp(s, "```", 3) == 0 || memcmp(s, "~~~", 3) == 0);
		if (fence) {
			in_directive = !in_fence && memchr(s, '{', (size_t)(eol - s)) != NULL;
			in_fence = !in_fence;
		} else if (in_directive) {
			buf_put(out, p, (size_t)(eol - p));
			buf_putc(out, '\n');
		} else if (!in_fence) {
			for (const char *q = p; q + 1 < eol; q++) {
				if (q[0] != '{' || q[1] != '{')
					continue;
				const char *close = memmem(q, (size_t)(eol - q), "}}", 2);
				if (!close)
					break;
				buf_put(out, q + 2, (size_t)(close - q - 2));
				buf_putc(out, '\n');
				q = close;
			}
		}
		p = nl ? nl + 1 : end;
	}
}

/* A run no value, table or excerpt names is a warning: a forgotten file,
 * or a reference that was meant to be there. */
static void warn_unused_runs(struct diag *d, const struct report *r)
{
	const struct value *spec = value_get(r->meta, "runs");
	struct buf refs = BUF_INIT;
	reference_text(r->text + r->body_off, r->text + r->len, &refs);
	const char *body = buf_data(&refs);
	size_t len = refs.len;
	for (size_t i = 0; i < r->runs.count; i++) {
		const struct runset *set = &r->runs.sets[i];
		bool used = names_word(body, len, set->name);
		for (size_t j = 0; !used && set->is_set && j < set->count; j++)
			used = names_word(body, len, run_name(set->runs[j]));
		long k = value_index(spec, set->name);
		if (!used && k >= 0)
			diag_warning(d, spec->key_locs[k],
				     "run '%s' is never used: no value, table or excerpt names it",
				     set->name);
	}
	buf_free(&refs);
}

/* What one report's turn reports and whether its writing failed: each
 * turn has its own, so that turns can run on several threads and still
 * report in report order (diag_flush()). */
struct job {
	struct diag *load_d;   /* loading its runs */
	struct diag *render_d; /* rendering its body, or copying its output */
	bool reused;           /* its folder is copied from the previous output */
	bool move;             /* ... by moving it over whole on commit */
	bool io_failed;
	bool keyed;            /* key is what the page depends on (cache.h) */
	struct cache_key key;
	bool clean;            /* built without a diagnostic: its key may be kept */
	bool shows_others;     /* shows an image from outside its folder (not in its key) */
	char **inputs;         /* the result files the key covers */
	size_t ninputs;
};

static void job_input(void *ctx, const char *shown)
{
	struct job *job = ctx;
	job->inputs = xrealloc(job->inputs, (job->ninputs + 1) * sizeof *job->inputs);
	job->inputs[job->ninputs++] = xstrdup(shown);
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
			     r->dir, b->root_real};
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

/* --- the local images a page shows --- */

/* Is url one the site itself cannot hold: with a scheme (http:, data:),
 * scheme-relative (//host), absolute (/x), or only a query or fragment?
 * The first two are not logdown's to check; the others name no file. */
static bool image_not_local(const char *url)
{
	if (!*url || url[0] == '/' || url[0] == '#' || url[0] == '?')
		return true;
	size_t n = strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
	return n > 0 && url[n] == ':' && isalpha((unsigned char)url[0]);
}

/* rel seen from the page SLUG/index.html, as a path below the site's
 * root with "." and ".." folded; NULL when it climbs out of the site. */
static char *site_path(const char *slug, const char *rel)
{
	char *all = xasprintf("%s/%s", slug, rel);
	char **seg = xcalloc(strlen(all) / 2 + 2, sizeof *seg);
	size_t n = 0;
	bool out = false;
	for (char *save = NULL, *t = strtok_r(all, "/", &save); t && !out;
	     t = strtok_r(NULL, "/", &save)) {
		if (strcmp(t, ".") == 0)
			continue;
		if (strcmp(t, "..") == 0)
			out = n-- == 0;
		else
			seg[n++] = t;
	}
	struct buf b = BUF_INIT;
	for (size_t i = 0; !out && i < n; i++) {
		if (i)
			buf_putc(&b, '/');
		buf_puts(&b, seg[i]);
	}
	free(seg);
	free(all);
	if (out || b.len == 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* A bundle file by where it goes in the site. */
struct output_file {
	const char *out; /* below the site: "hw07/img/loss.png" */
	const char *src;
};

static int cmp_output(const void *pa, const void *pb)
{
	return strcmp(((const struct output_file *)pa)->out, ((const struct output_file *)pb)->out);
}

/* Indexes the bundle files by output path, once they are all known. */
static void index_resources(struct build *b)
{
	size_t n = b->nresources / 2;
	b->by_output = xcalloc(n ? n : 1, sizeof *b->by_output);
	for (size_t i = 0; i < n; i++)
		b->by_output[i] = (struct output_file){b->resources[2 * i + 1], b->resources[2 * i]};
	if (n > 1)
		qsort(b->by_output, n, sizeof *b->by_output, cmp_output);
}

/* The bundle file copied to the site's path out, or NULL. */
static const struct output_file *resource_at(const struct build *b, const char *out)
{
	struct output_file key = {out, NULL};
	return b->nresources ? bsearch(&key, b->by_output, b->nresources / 2, sizeof key, cmp_output)
			     : NULL;
}

/* A file of the project's static/ (its path below the site, "static/x"),
 * which the build copies? */
static bool static_file(const struct build *b, const char *out)
{
	if (!str_has_prefix(out, "static/"))
		return false;
	char *path = path_join(b->opts->root, out);
	char *real = path_resolve(path);
	struct stat st;
	bool ok = real && path_under(real, b->root_real) && stat(real, &st) == 0 &&
		  S_ISREG(st.st_mode);
	free(real);
	free(path);
	return ok;
}

/* Checks one local image of r's page, written `url` at `at`: the site
 * must hold it where the page looks (a bundle file copied beside the
 * page, or a static/ file).  When it does not, the source path, read
 * from the report's folder as the PDF reads it and confined to the
 * project as result files are, says why. */
static void check_image(struct build *b, const struct report *r, const char *url, struct loc at,
			struct job *job)
{
	char *file = doc_url_file(url);
	char *out = site_path(r->slug, file);
	const struct output_file *f = out ? resource_at(b, out) : NULL;
	if (f || (out && static_file(b, out))) {
		/* another report's file, or static/: not covered by r's key */
		if (!f || !r->bundle || !str_has_prefix(f->src, r->dir) ||
		    f->src[strlen(r->dir)] != '/')
			job->shows_others = true;
		free(out);
		free(file);
		return;
	}
	job->shows_others = true; /* it may appear: warn every time */
	struct diag *d = job->render_d;
	char *path = path_join(r->dir, file);
	char *real = path_resolve(path);
	struct stat st;
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	if (!real)
		diag_warning(d, at, "image '%s' cannot be found: %s", url, strerror(errno));
	else if (!path_under(real, b->root_real))
		diag_warning(d, at,
			     "image '%s' leads outside the project: logdown copies nothing from "
			     "there (copy the file into the report's folder)",
			     url);
	else if (stat(real, &st) != 0)
		diag_warning(d, at,
			     "image '%s' does not exist: the page would show a broken image (fix "
			     "the path, or put the file there)",
			     url);
	else if (!S_ISREG(st.st_mode))
		diag_warning(d, at, "image '%s' is not a file", url);
	else if (!r->bundle)
		diag_warning(d, at,
			     "image '%s' is not copied into the site: only the files of a report "
			     "folder are (move this report to content/%s/index.md, beside its "
			     "images)",
			     url, r->slug);
	else if (!is_resource(base))
		diag_warning(d, at,
			     "image '%s' is not copied into the site: a report folder's .png .jpg "
			     ".jpeg .gif .svg .webp .avif .pdf .mp4 .webm files are",
			     url);
	else
		diag_warning(d, at,
			     "image '%s' is not copied into the site where the page looks: only "
			     "the report folder's own files are (copy it into the folder)",
			     url);
	free(real);
	free(path);
	free(out);
	free(file);
}

/* Checks every local image the page shows (values in a source are the
 * reader's to check). */
static void check_images(struct build *b, const struct report *r, struct doc *doc,
			 struct job *job)
{
	cmark_iter *it = cmark_iter_new(doc_root(doc));
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		if (ev != CMARK_EVENT_ENTER || cmark_node_get_type(n) != CMARK_NODE_IMAGE)
			continue;
		const char *url = cmark_node_get_url(n);
		size_t at, len, index;
		if (!url || image_not_local(url) || doc_next_value(url, strlen(url), &at, &len, &index))
			continue;
		struct loc where = loc_line(doc_file(doc),
					    doc_line0(doc) + cmark_node_get_start_line(n));
		where.col = cmark_node_get_start_column(n);
		check_image(b, r, url, where, job);
	}
	cmark_iter_free(it);
}

/* Resolve the directives and values, render Markdown into r->html,
 * then write the figures and the log pages.  Any thread: everything it
 * reports goes to job->render_d. */
static void render_body(struct build *b, struct report *r, struct job *job)
{
	struct diag *d = job->render_d;
	struct report_scope rs;
	scope_collect(&rs, &r->runs);
	struct scope scope = {
		.runs = rs.runs,
		.nruns = rs.nruns,
		.set_names = rs.set_names,
		.set_counts = rs.set_counts,
		.nsets = rs.nsets,
	};
	struct directive_ctx ctx = {
		.scope = &scope,
		.set_names = rs.set_names,
		.set_runs = rs.set_runs,
		.set_counts = rs.set_counts,
		.nsets = rs.nsets,
		.prov = provenance_new(r->dir, b->root_real),
		.d = d,
		.root = b->opts->root,
		.root_real = b->root_real,
	};
	struct figure_sink sink = {b, job, r->slug};
	if (b->writing) {
		ctx.write_figure = write_figure;
		ctx.figure_ctx = &sink;
	}
	ctx.figure_formats = FIGURE_SVG | b->opts->figures;
	struct doc *doc = doc_resolve(r->text + r->body_off, r->len - r->body_off, r->path,
				      r->body_line - 1, &ctx);
	r->html = html_doc(doc);
	check_images(b, r, doc, job);
	if (b->opts->pdf)
		write_pdf(b, r, doc, job);
	doc_free(doc);
	warn_unused_runs(d, r);
	char *root = report_root_prefix(r->slug);
	if (!provenance_write(ctx.prov, b->writing ? &b->out : NULL, r->slug, root, d))
		job->io_failed = true;
	free(root);
	provenance_free(ctx.prov);
	scope_release(&rs);
}

/* The page template around r->html, written to SLUG/index.html.  One
 * thread: the theme remembers which missing partials it reported. */
static void render_page(struct build *b, struct report *r)
{
	char *root = report_root_prefix(r->slug);
	struct value *data = value_new(VALUE_MAP);
	value_set(data, "site", site_value(&b->config));
	value_set_str(data, "root", root);
	free(root);
	set_report_fields(data, r);
	value_set_str(data, "content", r->html);
	if (b->opts->pdf)
		value_set_str(data, "pdf", "report.pdf");
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
		/* index.html spelled out: a folder link opens a listing from
		 * file:// */
		char *url = xasprintf("%s/index.html", r->slug);
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

/* Walks static/ as the reports are walked (links confined, loops and
 * special files reported), copying each file when writing: `check`
 * finds the same problems as `build`. */
static void walk_static(struct build *b, const char *dir, const char *rel)
{
	size_t n;
	char **names = walk_enter(b, dir, strchr(rel, '/') != NULL, &n);
	if (!names)
		return;
	for (size_t i = 0; i < n; i++) {
		char *path = path_join(dir, names[i]);
		char *out = path_join(rel, names[i]);
		enum entry kind = classify(b, path);
		if (kind == ENTRY_DIR)
			walk_static(b, path, out);
		else if (kind == ENTRY_FILE && b->writing && !outdir_copy(&b->out, out, path, b->d))
			b->io_failed = true;
		free(path);
		free(out);
	}
	walk_leave(b, names);
}

static void copy_static(struct build *b)
{
	const struct embedded_file *css = embedded_find("static/logdown.css");
	if (css)
		write_file(b, "static/logdown.css", css->data, css->len);
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
		if (!in_moved(b, b->resources[i + 1]) &&
		    !outdir_copy(&b->out, b->resources[i + 1], b->resources[i], b->d))
			b->io_failed = true;
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

/* The built-in parsers, the project's parsers/ and the folders
 * site.yaml lists (relative to the project). */
static void load_parsers(struct build *b)
{
	size_t n = 0;
	while (b->config.parsers && b->config.parsers[n])
		n++;
	char **extra = xcalloc(n + 1, sizeof *extra);
	for (size_t i = 0; i < n; i++)
		extra[i] = path_join(b->opts->root, b->config.parsers[i]);
	b->parsers = parsers_load(b->opts->root, extra, b->d);
	strv_free(extra);
}

static void build_free(struct build *b)
{
	for (size_t i = 0; i < b->nreports; i++)
		report_free(&b->reports[i], b->d);
	free(b->reports);
	free(b->slug_hashes);
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

/* Is r's output to be copied from the previous output (opts->reuse)? */
static bool reusable(const struct build *b, const struct report *r)
{
	if (!b->writing || !b->opts->reuse)
		return false;
	bool listed = false;
	for (size_t i = 0; i < b->opts->nreuse && !listed; i++)
		listed = strcmp(b->opts->reuse[i], r->slug) == 0;
	if (!listed)
		return false;
	char *rel = path_join(r->slug, "index.html");
	char *page = path_join(b->out.final, rel);
	bool there = is_file(page);
	free(page);
	free(rel);
	return there;
}

/* Copies the previous output's folder rel (a reused report's, or one
 * below it) into the staging folder.  At the top of a report's folder
 * only what rendering writes is taken (index.html, figures/, logs/):
 * its bundle's files are copied from the sources as always, and the
 * folders of other reports, nested or gone, are not its own. */
static void copy_previous(struct build *b, const char *slug, const char *rel, struct job *job)
{
	/* The staging folder rel first (its parent exists, but for the top
	 * of a nested slug), then a link per file: no stat, no listing sort,
	 * no mkdir per file.  1,000 reused reports cost a few ms. */
	char *staged = path_join(b->out.staging, rel);
	bool made = mkdir(staged, 0755) == 0 || errno == EEXIST || mkdir_p(staged);
	free(staged);
	char *dir = path_join(b->out.final, rel);
	DIR *dp = made ? opendir(dir) : NULL;
	if (!dp) {
		diag_error(job->render_d, loc_line(dir, 0), "cannot list: %s", strerror(errno));
		job->io_failed = true;
		free(dir);
		return;
	}
	bool top = strcmp(rel, slug) == 0;
	struct dirent *e;
	while ((e = readdir(dp)) != NULL) {
		const char *name = e->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		bool rendered = strcmp(name, "index.html") == 0 || strcmp(name, "figures") == 0 ||
				strcmp(name, "logs") == 0 ||
				(b->opts->pdf && strcmp(name, "report.pdf") == 0);
		if (top && !rendered)
			continue; /* a bundle's file, or another report's folder */
		char *out = path_join(rel, name);
		bool sub = e->d_type == DT_DIR, link = e->d_type == DT_LNK;
		if (e->d_type == DT_UNKNOWN) {
			char *src = path_join(dir, name);
			struct stat st;
			link = lstat(src, &st) == 0 && S_ISLNK(st.st_mode);
			sub = !link && is_dir(src);
			free(src);
		}
		if (link) {
			/* logdown writes no links: following one could copy, or
			 * loop over, anything on the machine */
			char *src = path_join(dir, name);
			diag_error(job->render_d, loc_line(src, 0),
				   "a link in the previous output, which logdown did not write: remove "
				   "it");
			job->io_failed = true;
			free(src);
			free(out);
			continue;
		}
		if (sub)
			copy_previous(b, slug, out, job);
		else if (!outdir_link(&b->out, out, job->render_d))
			job->io_failed = true;
		free(out);
	}
	closedir(dp);
	free(dir);
}

/* Is name, in the folder of the report slug, one of its bundle's files
 * (or the first folder of one)? */
static bool own_resource(const struct build *b, const char *slug, const char *name)
{
	size_t n = strlen(slug), m = strlen(name);
	for (size_t i = 1; i < b->nresources; i += 2) {
		const char *dst = b->resources[i];
		if (strncmp(dst, slug, n) == 0 && dst[n] == '/' && strncmp(dst + n + 1, name, m) == 0 &&
		    (dst[n + 1 + m] == '\0' || dst[n + 1 + m] == '/'))
			return true;
	}
	return false;
}

/* May the previous output's folder of the reused report slug move over
 * whole (outdir_move())?  Only when it holds nothing a build would not
 * put there (the rendered files, its bundle's files, which its key
 * covers) and no other report's folder lies below it. */
static bool movable(const struct build *b, const char *slug)
{
	if (!b->can_move)
		return false;
	char *below = xasprintf("%s/", slug);
	size_t lo = 0, hi = b->nreports;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(b->slugs[mid], below) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	bool nested = lo < b->nreports && str_has_prefix(b->slugs[lo], below);
	free(below);
	if (nested)
		return false;
	char *dir = path_join(b->out.final, slug);
	struct stat st;
	DIR *dp = lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(dir) : NULL;
	free(dir);
	bool ok = dp != NULL;
	struct dirent *e;
	while (ok && (e = readdir(dp)) != NULL) {
		const char *name = e->d_name;
		ok = strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
		     strcmp(name, "index.html") == 0 || strcmp(name, "figures") == 0 ||
		     strcmp(name, "logs") == 0 || (b->opts->pdf && strcmp(name, "report.pdf") == 0) ||
		     own_resource(b, slug, name);
	}
	if (dp)
		closedir(dp);
	return ok;
}

/* --- running the reports' turns on several threads --- */

typedef void (*turn_fn)(struct build *b, size_t i, struct job *job);

struct pool {
	struct build *b;
	struct job *jobs;
	size_t n;
	atomic_size_t next;
	turn_fn fn;
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		p->fn(p->b, i, &p->jobs[i]);
	}
	return NULL;
}

/* Runs fn for every report, on up to opts->jobs threads (the calling
 * one included).  Each turn reports only through its job. */
static void run_turns(struct build *b, struct job *jobs, turn_fn fn)
{
	struct pool p = {b, jobs, b->nreports, 0, fn};
	size_t want = b->opts->jobs ? b->opts->jobs : site_default_jobs();
	if (want > b->nreports)
		want = b->nreports;
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

size_t site_default_jobs(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return (size_t)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}

/* The key of r's page: the site's key, the report's text and slug, its
 * bundle's files and everything its runs would read.  False when
 * something could not be resolved: the report is then built as always,
 * which reports the problem. */
static bool report_key(struct build *b, const struct report *r, struct job *job,
		       struct cache_key *out)
{
	struct cache_hasher *h = cache_hasher_new();
	cache_hasher_str(h, "report");
	cache_hasher_key(h, &b->site_key);
	cache_hasher_str(h, r->slug);
	cache_hasher_str(h, r->path);
	cache_hasher_bytes(h, r->text, r->len);
	bool ok = true;
	size_t n = strlen(r->slug);
	for (size_t i = 0; ok && i < b->nresources; i += 2) {
		const char *dst = b->resources[i + 1];
		if (strncmp(dst, r->slug, n) != 0 || dst[n] != '/')
			continue;
		struct cache_key fh;
		ok = cache_file_hash(b->disk, b->resources[i], &fh);
		cache_hasher_str(h, dst);
		cache_hasher_key(h, &fh);
	}
	struct diag *quiet = diag_new_deferred(b->d);
	ok = ok && report_runs_inputs(value_get(r->meta, "runs"), r->dir, b->root_real, b->parsers,
				      b->disk, &b->parsers_key, h, job_input, job, quiet);
	ok = ok && diag_errors(quiet) + diag_warnings(quiet) == 0;
	diag_free(quiet);
	*out = cache_hasher_end(h);
	return ok;
}

/* Adds every file under dir (rel: its name below templates/) to h. */
static void hash_tree(struct build *b, struct cache_hasher *h, const char *dir, const char *rel)
{
	size_t n;
	char **names = dir_list(dir, &n);
	for (size_t i = 0; names && i < n; i++) {
		char *path = path_join(dir, names[i]);
		char *child = *rel ? path_join(rel, names[i]) : xstrdup(names[i]);
		struct cache_key fh;
		if (is_dir(path)) {
			hash_tree(b, h, path, child);
		} else {
			cache_hasher_str(h, child);
			if (cache_file_hash(b->disk, path, &fh))
				cache_hasher_key(h, &fh);
			else
				cache_hasher_str(h, "unreadable");
		}
		free(path);
		free(child);
	}
	strv_free(names);
}

/* What every page depends on besides its report: the binary (in every
 * key), the parsers, site.yaml, templates/ and the options. */
static struct cache_key site_key(struct build *b, const struct cache_key *parsers)
{
	struct cache_hasher *h = cache_hasher_new();
	cache_hasher_str(h, "site");
	cache_hasher_key(h, parsers);
	unsigned opts[3] = {b->opts->figures, b->opts->drafts, b->opts->pdf};
	cache_hasher_bytes(h, opts, sizeof opts);
	char *yaml = path_join(b->opts->root, "site.yaml");
	struct cache_key fh;
	if (cache_file_hash(b->disk, yaml, &fh))
		cache_hasher_key(h, &fh);
	else
		cache_hasher_str(h, "no site.yaml");
	free(yaml);
	char *tpl = path_join(b->opts->root, "templates");
	cache_hasher_str(h, "templates");
	hash_tree(b, h, tpl, "");
	free(tpl);
	return cache_hasher_end(h);
}

static void load_turn(struct build *b, size_t i, struct job *job)
{
	struct report *r = &b->reports[i];
	if (!job->reused && b->reports_keyed) {
		job->keyed = report_key(b, r, job, &job->key);
		if (job->keyed && cache_reports_has(b->prev, r->slug, &job->key)) {
			char *rel = path_join(r->slug, "index.html");
			char *page = path_join(b->out.final, rel);
			job->reused = is_file(page);
			free(page);
			free(rel);
		}
	}
	if (job->reused)
		return;
	report_runs_load_cached(&r->runs, value_get(r->meta, "runs"), r->dir, b->root_real,
				b->parsers, b->pc, job->load_d);
}

static void render_turn(struct build *b, size_t i, struct job *job)
{
	if (job->reused && movable(b, b->reports[i].slug))
		job->move = true;
	else if (job->reused)
		copy_previous(b, b->reports[i].slug, b->reports[i].slug, job);
	else
		render_body(b, &b->reports[i], job);
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
	theme_load(&b.theme, opts->root, d);
	discover(&b, b.content, "");
	index_resources(&b);

	/* parse results (not for a report whose output is reused), then
	 * render; each on opts->jobs threads, reporting in report order */
	load_parsers(&b);
	doc_init();
	b.pc = opts->cache ? opts->cache : (b.own_pc = parse_cache_new());
	if (!opts->no_cache && b.parsers) {
		/* check reads the cache and writes nothing */
		b.disk = cache_open(opts->root, b.writing && !scratch);
		b.parsers_key = parse_cache_parsers_key(b.parsers);
		parse_cache_set_disk(b.pc, b.disk, &b.parsers_key);
		if (b.writing && !scratch) {
			b.site_key = site_key(&b, &b.parsers_key);
			b.reports_keyed = true;
			b.prev = cache_reports_load(b.disk, b.out.final);
		}
	}
	size_t parsed0 = parse_cache_parsed(b.pc), reused0 = parse_cache_reused(b.pc),
	       disk0 = parse_cache_from_disk(b.pc);
	struct job *jobs = xcalloc(b.nreports ? b.nreports : 1, sizeof *jobs);
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
		if (opts->on_input && !jobs[i].reused)
			report_inputs(r->slug, &r->runs, opts);
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
				outdir_move(&b.out, b.reports[i].slug);
				b.moved[b.nmoved++] = b.reports[i].slug;
			}
		}
		if (b.nmoved > 1)
			qsort(b.moved, b.nmoved, sizeof *b.moved, cmp_str);
		for (size_t i = 0; i < b.nreports; i++) {
			struct job *job = &jobs[i];
			job->clean &= diag_errors(job->render_d) + diag_warnings(job->render_d) == 0;
			diag_flush(job->render_d, d);
			if (!job->reused) {
				size_t before = diag_errors(d) + diag_warnings(d);
				render_page(&b, &b.reports[i]);
				job->clean &= diag_errors(d) + diag_warnings(d) == before;
				b.nrendered++;
			} else {
				b.nfrom_cache++;
			}
		}
	}
	/* the keys of the pages this build wrote cleanly: kept for the next
	 * one once this output is in place */
	struct cache_reports *next = b.reports_keyed ? cache_reports_new() : NULL;
	for (size_t i = 0; next && i < b.nreports; i++)
		if (jobs[i].keyed && (jobs[i].reused || jobs[i].clean) && !jobs[i].io_failed &&
		    !jobs[i].shows_others)
			cache_reports_add(next, b.reports[i].slug, &jobs[i].key);
	if (b.theme.page && b.theme.index) {
		/* no reports: no array, and qsort() may not be given NULL */
		if (b.nreports > 1)
			qsort(b.reports, b.nreports, sizeof *b.reports, cmp_newest);
		render_index(&b);
	}
	for (size_t i = 0; i < b.nreports; i++) {
		b.io_failed |= jobs[i].io_failed;
		diag_free(jobs[i].load_d);
		diag_free(jobs[i].render_d);
		for (size_t k = 0; k < jobs[i].ninputs; k++)
			free(jobs[i].inputs[k]);
		free(jobs[i].inputs);
	}
	free(jobs);
	copy_static(&b);
	copy_resources(&b);
	if (opts->nreports)
		*opts->nreports = b.nreports;
	if (opts->nrendered)
		*opts->nrendered = b.nrendered;

	if (diag_errors(d) > 0)
		rc = b.io_failed ? EXIT_IO : EXIT_CONTENT;
	if (rc == EXIT_OK && scratch) {
		compare_trees(&b, b.out.staging, opts->against, "");
		if (diag_errors(d) > 0)
			rc = EXIT_CONTENT;
	} else if (rc == EXIT_OK && b.writing) {
		if (!outdir_commit(&b.out, d)) {
			rc = EXIT_IO;
		} else if (next) {
			char *marker = path_join(b.out.final, OUTDIR_MARKER);
			cache_reports_save(b.disk, next, b.out.final, marker);
			next = NULL;
			free(marker);
		}
		/* every report's runs were loaded or, for a page reused by
		 * key, marked: the rest are old versions and unused files */
		if (rc == EXIT_OK && !opts->reuse)
			cache_runs_prune(b.disk);
	}
	cache_reports_free(next);
	cache_report(b.disk, d);
	if (!opts->summary) {
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
			fprintf(stderr,
				"logdown: %zu report%s: %zu rendered, %zu from cache; %zu result "
				"file%s read: %zu parsed, %zu from cache\n",
				b.nreports, b.nreports == 1 ? "" : "s", b.nrendered, b.nfrom_cache,
				parsed + cached, parsed + cached == 1 ? "" : "s", parsed, cached);
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
	cache_close(b.disk);
	return rc;
}

int site_clean(const char *root, const char *output, struct diag *d)
{
	if (!is_dir(root)) {
		diag_error(d, loc_line(root, 0), "not a project folder: %s",
			   path_exists(root) ? "not a folder" : strerror(ENOENT));
		return EXIT_USAGE;
	}
	int rc = EXIT_OK;
	char *cache = path_join(root, CACHE_DIR);
	bool had_cache = path_exists(cache);
	if (!cache_remove(root)) {
		diag_error(d, loc_line(cache, 0), "cannot remove the build cache: %s%s",
			   strerror(errno),
			   errno == EPERM ? " (no CACHEDIR.TAG inside: not logdown's, left alone)" : "");
		rc = EXIT_IO;
	} else if (had_cache) {
		fprintf(stderr, "logdown: removed %s\n", cache);
	}
	free(cache);
	struct config config;
	struct diag *quiet = diag_new_deferred(d); /* site.yaml is checked by build */
	config_load(&config, root, quiet);
	diag_free(quiet);
	char *out = output ? xstrdup(output) : path_join(root, config.output);
	config_free(&config);
	outdir_sweep(out);
	char *marker = path_join(out, OUTDIR_MARKER);
	if (!path_exists(out)) {
		/* nothing to do */
	} else if (!is_dir(out) || !is_file(marker)) {
		diag_warning(d, loc_line(out, 0),
			     "not removed: logdown did not make it (no " OUTDIR_MARKER " inside)");
	} else if (!remove_tree(out)) {
		diag_error(d, loc_line(out, 0), "cannot remove: %s", strerror(errno));
		rc = EXIT_IO;
	} else {
		fprintf(stderr, "logdown: removed %s\n", out);
	}
	free(marker);
	free(out);
	return rc;
}
