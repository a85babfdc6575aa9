/* discover.c: which reports the site holds.  The walk of content/ (and
 * of static/, for build.c): links followed only inside the project and
 * never in a loop, special files left out; a folder holding index.md is
 * a bundle, whose other files are the report's own; each report gets
 * its slug, a draft is left out without --drafts, and two reports
 * taking one slug, or one the site keeps for itself, are errors. */
#define _GNU_SOURCE /* DT_REG and DT_DIR, the types readdir() gives */
#include "site_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "parse/report.h"

/* Files of a report bundle copied beside its page, so that Markdown
 * like ![plot](loss.png) works.  Result files are not among them: the
 * result stage copies the ones a report uses. */
static const char *const resource_exts[] = {
	".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".pdf", ".mp4", ".webm", NULL,
};

/* Output names the site writes itself: a report may not take them. */
static const char *const reserved_slugs[] = {"static", "index.html", NULL};

bool is_resource(const char *name)
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

/* What the walk makes of path.  Links are followed only where they lead
 * inside the project and not back into a folder being walked (a loop);
 * anything else is reported.  Special files (FIFOs, devices) are left
 * out with a warning: reading them could hang the build. */
enum entry classify(struct build *b, const char *path)
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
	diag_warning(b->d, loc_line(path, 0), "not a regular file (%s): left out",
		     file_kind_word(st.st_mode));
	return ENTRY_SKIP;
}

/* classify() of path, an entry of a listing that gave its type: a
 * regular file or a folder itself (no link) as the listing says, with no
 * lstat() (two a report of a bundle); anything else, or a file system
 * that does not say (DT_UNKNOWN), as classify() finds it. */
static enum entry classify_listed(struct build *b, const char *path, unsigned char type)
{
	if (type == DT_REG)
		return ENTRY_FILE;
	if (type == DT_DIR)
		return ENTRY_DIR;
	return classify(b, path);
}

/* Enters folder dir for walking; false when it cannot be listed.  child:
 * dir is an entry of the folder walked last. */
char **walk_enter(struct build *b, const char *dir, bool child, bool real_dir, size_t *n,
		  unsigned char **types)
{
	char **names = dir_list_typed(dir, n, types);
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
	char *real = child && b->nwalk > 0 && base &&
				     (real_dir || (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
			     ? path_join(b->walk[b->nwalk - 1], base + 1)
			     : path_real(dir);
	b->walk = xrealloc(b->walk, (b->nwalk + 1) * sizeof *b->walk);
	b->walk[b->nwalk++] = real ? real : xstrdup(dir);
	return names;
}

void walk_leave(struct build *b, char **names)
{
	strv_free(names);
	free(b->walk[--b->nwalk]);
}

/* Collects the resources under a bundle's folder; rel_out is where they
 * go in the site.  Markdown files there are the report's own files, not
 * reports: a likely mistake at the top of the folder, or an index.md
 * anywhere in it, gets a warning. */
static void scan_bundle(struct build *b, const char *dir, const char *rel_out, const char *index,
			bool top, bool real_dir)
{
	size_t n;
	unsigned char *types = NULL;
	char **names = walk_enter(b, dir, true, real_dir, &n, &types);
	if (!names)
		return;
	for (size_t i = 0; i < n; i++) {
		if (names[i][0] == '.')
			continue;
		char *path = path_join(dir, names[i]);
		char *out = path_join(rel_out, names[i]);
		enum entry kind = classify_listed(b, path, types[i]);
		if (kind == ENTRY_DIR) {
			scan_bundle(b, path, out, index, false, types[i] == DT_DIR);
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
	free(types);
	walk_leave(b, names);
}

/* The reports found so far by slug, in a hash table: a site of 10,000
 * reports compared each new slug's hash with every one before (50
 * million compares).  slug_slot() is where slug is, or the empty slot
 * where it would go; the table is kept at most half full. */
static size_t slug_slot(const struct build *b, const char *slug, uint64_t h)
{
	size_t i = (size_t)h & (b->slug_cap - 1);
	for (; b->slug_slots[i]; i = (i + 1) & (b->slug_cap - 1)) {
		size_t k = b->slug_slots[i] - 1;
		if (b->slug_hashes[k] == h && strcmp(b->reports[k].slug, slug) == 0)
			break;
	}
	return i;
}

static void slug_grow(struct build *b)
{
	if (2 * (b->nreports + 1) <= b->slug_cap)
		return;
	size_t cap = b->slug_cap ? 2 * b->slug_cap : 64;
	free(b->slug_slots);
	b->slug_slots = xcalloc(cap, sizeof *b->slug_slots);
	b->slug_cap = cap;
	for (size_t k = 0; k < b->nreports; k++) {
		size_t i = (size_t)b->slug_hashes[k] & (cap - 1);
		while (b->slug_slots[i])
			i = (i + 1) & (cap - 1);
		b->slug_slots[i] = k + 1;
	}
}

/* A report the walk found, before its file is read.  The walk's own
 * diagnostics go to deferred sinks cut at each report, so that with the
 * reports read on several threads, everything comes out in the order
 * of one thread's walk (discover()). */
struct found {
	char *path;
	char *slug;
	bool bundle;
	bool ok;              /* report_load() succeeded */
	struct report r;
	struct diag *load_d;   /* reading it */
	struct diag *bundle_d; /* the walk of its bundle: kept if it is */
	struct diag *after_d;  /* the walk after it, up to the next report */
	size_t res0, res1;     /* its bundle's files in b->resources */
	bool bundle_io;        /* that walk could not read something */
};

struct finding {
	struct diag *d; /* the build's own sink */
	struct found *v;
	size_t n, cap;
};

/* The report at path (rel: below content/) into f, unless its slug is
 * one no report may take.  True when it was taken. */
static bool add_report(struct build *b, struct finding *f, const char *path, const char *rel)
{
	char *slug = report_slug(rel);
	if (!slug) {
		diag_error(b->d, loc_line(path, 0),
			   "content/index.md would be the site index, which logdown writes itself: "
			   "move this report to content/<name>.md");
		return false;
	}
	size_t first = strcspn(slug, "/");
	for (size_t i = 0; reserved_slugs[i]; i++) {
		if (strlen(reserved_slugs[i]) == first && strncmp(slug, reserved_slugs[i], first) == 0) {
			diag_error(b->d, loc_line(path, 0),
				   "this report would be written to %s/, where the site keeps its own "
				   "'%s': rename it", slug, reserved_slugs[i]);
			free(slug);
			return false;
		}
	}
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->v = xrealloc(f->v, f->cap * sizeof *f->v);
	}
	struct found *fd = &f->v[f->n++];
	memset(fd, 0, sizeof *fd);
	fd->path = xstrdup(path);
	fd->slug = slug;
	fd->load_d = diag_new_deferred_borrowing(f->d);
	fd->after_d = diag_new_deferred(f->d);
	b->d = fd->after_d;
	return true;
}

/* Finds the reports under dir (rel: its path below content/) into f.
 * A folder holding index.md is one report, a bundle: its other files
 * are the report's own, not reports. */
static void walk_content(struct build *b, struct finding *f, const char *dir, const char *rel,
			 bool real_dir)
{
	char *index = path_join(dir, "index.md");
	if (*rel && is_file(index)) {
		char *rel_md = path_join(rel, "index.md");
		if (add_report(b, f, index, rel_md)) {
			/* walked now, kept only if the report is (discover()) */
			size_t k = f->n - 1;
			bool io = b->io_failed;
			b->io_failed = false;
			b->d = f->v[k].bundle_d = diag_new_deferred(f->d);
			f->v[k].bundle = true;
			f->v[k].res0 = b->nresources;
			scan_bundle(b, dir, f->v[k].slug, index, true, real_dir);
			f->v[k].res1 = b->nresources;
			f->v[k].bundle_io = b->io_failed;
			b->io_failed = io;
			b->d = f->v[k].after_d;
		}
		free(rel_md);
		free(index);
		return;
	}
	free(index);
	size_t n;
	unsigned char *types = NULL;
	char **names = walk_enter(b, dir, *rel != '\0', real_dir, &n, &types);
	if (!names)
		return;
	for (size_t i = 0; i < n; i++) {
		if (names[i][0] == '.')
			continue;
		char *path = path_join(dir, names[i]);
		char *child_rel = *rel ? path_join(rel, names[i]) : xstrdup(names[i]);
		enum entry kind = classify_listed(b, path, types[i]);
		if (kind == ENTRY_DIR)
			walk_content(b, f, path, child_rel, types[i] == DT_DIR);
		else if (kind == ENTRY_FILE && str_has_suffix(names[i], ".md"))
			add_report(b, f, path, child_rel);
		free(path);
		free(child_rel);
	}
	free(types);
	walk_leave(b, names);
}

/* Reads a found report and its front matter: any thread. */
static void load_found(struct build *b, size_t i, void *ctx)
{
	(void)b;
	struct found *fd = &((struct finding *)ctx)->v[i];
	fd->ok = report_load(&fd->r, fd->path, fd->slug, fd->load_d);
}

/* Takes found report fd into b->reports, or reports why not, as one
 * thread reading each report where the walk found it would have. */
static void take_found(struct build *b, struct found *fd, bool *drop_res)
{
	uint64_t h = str_hash(fd->slug);
	slug_grow(b);
	size_t at = slug_slot(b, fd->slug, h);
	bool keep = false;
	if (b->slug_slots[at]) {
		/* one thread would not have read it */
		diag_error(b->d, loc_line(fd->path, 0),
			   "this report and %s both become %s/index.html: rename one",
			   b->reports[b->slug_slots[at] - 1].path, fd->slug);
	} else {
		diag_flush(fd->load_d, b->d);
		if (!fd->ok || (fd->r.draft && !b->opts->drafts))
			b->ndrafts += fd->ok;
		else
			keep = true;
	}
	if (!keep) {
		report_free(&fd->r, NULL);
		*drop_res = true;
		return;
	}
	if (b->nreports == b->reports_cap) {
		b->reports_cap = b->reports_cap ? 2 * b->reports_cap : 16;
		b->reports = xrealloc(b->reports, b->reports_cap * sizeof *b->reports);
		b->slug_hashes = xrealloc(b->slug_hashes, b->reports_cap * sizeof *b->slug_hashes);
	}
	/* its text is quoted by the build's diagnostics from now on */
	diag_add_source(b->d, fd->r.path, fd->r.text, fd->r.len);
	b->slug_hashes[b->nreports] = h;
	b->reports[b->nreports] = fd->r;
	b->reports[b->nreports].bundle = fd->bundle;
	b->nreports++;
	b->slug_slots[at] = b->nreports;
	if (fd->bundle_d)
		diag_flush(fd->bundle_d, b->d);
	b->io_failed |= fd->bundle_io;
}

void discover(struct build *b, const char *dir, const char *rel)
{
	/* the walk on this thread, each report only noted; their files
	 * read and their front matter parsed on every thread; then each
	 * report taken in the walk's order, with the walk's diagnostics
	 * around it */
	struct finding f = {b->d, NULL, 0, 0};
	struct diag *before = diag_new_deferred(f.d);
	b->d = before;
	walk_content(b, &f, dir, rel, false);
	b->d = f.d;
	run_parallel(b, f.n, load_found, &f);
	diag_flush(before, b->d);
	diag_free(before);
	bool *drop = xcalloc(f.n + 1, sizeof *drop);
	for (size_t i = 0; i < f.n; i++) {
		struct found *fd = &f.v[i];
		take_found(b, fd, &drop[i]);
		diag_flush(fd->after_d, b->d);
		diag_free(fd->load_d);
		diag_free(fd->bundle_d);
		diag_free(fd->after_d);
		free(fd->path);
		free(fd->slug);
	}
	/* the files of bundles not taken (drafts, a slug taken twice) */
	size_t w = 0, r = 0;
	for (size_t i = 0; i < f.n; i++) {
		for (; r < f.v[i].res0; r++)
			b->resources[w++] = b->resources[r];
		for (; r < f.v[i].res1; r++) {
			if (drop[i])
				free(b->resources[r]);
			else
				b->resources[w++] = b->resources[r];
		}
	}
	for (; r < b->nresources; r++)
		b->resources[w++] = b->resources[r];
	b->nresources = w;
	free(drop);
	free(f.v);
}
