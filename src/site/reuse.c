/* reuse.c: what a build may take over from the previous output instead
 * of rendering it again.  A page's cache key (the site's key, the
 * report, its bundle's files, every result file its runs read) says
 * whether the page is the one the current output holds; a reused
 * report's folder is then kept where it is in the output, or linked
 * file by file into the new one when other reports' folders lie below
 * it; either only when nothing in it is foreign (previous_clean()). */
#define _GNU_SOURCE /* DT_DIR and the other d_type values of readdir() */
#include "site_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "parse/runs.h"
#include "resolve/cite.h"
#include "site/manifest.h"

/* Is r's output to be copied from the previous output (opts->reuse)? */
bool reusable(const struct build *b, const struct report *r)
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
	/* and its entry in the manifest, which the copy does not write */
	return there && manifest_find(b->prev_manifest, r->slug);
}

/* Copies the previous output's folder rel (a reused report's, or one
 * below it) into the staging folder.  At the top of a report's folder
 * only what rendering writes is taken (index.html, figures/, logs/):
 * its bundle's files are copied from the sources as always, and the
 * folders of other reports, nested or gone, are not its own. */
void copy_previous(struct build *b, const char *slug, const char *rel, struct job *job)
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

/* Calls fn for each entry of the folder fd but "." and "..", with its
 * type from the listing (DT_UNKNOWN on a file system that does not
 * say), until fn returns false; false then, or when the folder cannot
 * be read.  getdents64(2) itself: a DIR from fdopendir() costs two
 * fcntl() calls more per folder, 4,000 in a one-log rebuild of 1,000
 * reports. */
static bool each_entry(int fd, bool (*fn)(void *ctx, int dfd, const char *name, unsigned type),
		       void *ctx)
{
	char buf[4096];
	for (;;) {
		ssize_t n = getdents64(fd, buf, sizeof buf);
		if (n < 0)
			return false;
		if (n == 0)
			return true;
		for (ssize_t at = 0; at < n;) {
			struct dirent64 *e = (struct dirent64 *)(buf + at);
			at += e->d_reclen;
			const char *name = e->d_name;
			if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
				continue;
			if (!fn(ctx, fd, name, e->d_type))
				return false;
		}
	}
}

/* Is dfd/name a folder or a regular file with one name, as a build
 * writes them?  A folder's contents are checked in turn (tree_clean()). */
static bool entry_clean(int dfd, const char *name, unsigned type, int depth);

struct walk {
	int depth;
};

static bool visit(void *ctx, int dfd, const char *name, unsigned type)
{
	return entry_clean(dfd, name, type, ((struct walk *)ctx)->depth);
}

/* Is everything below the folder dfd (which it closes) what a build
 * writes: folders and regular files with one name each?  A symbolic
 * link, a FIFO or device, or a file with another name elsewhere (a hard
 * link to a file outside the output, which the build never makes in a
 * folder it keeps) is not; depth bounds a planted folder chain. */
static bool tree_clean(int dfd, int depth)
{
	struct walk w = {depth + 1};
	bool ok = depth < 64 && each_entry(dfd, visit, &w);
	close(dfd);
	return ok;
}

static bool entry_clean(int dfd, const char *name, unsigned type, int depth)
{
	if (type == DT_DIR || type == DT_UNKNOWN) {
		/* a link in its place fails O_NOFOLLOW, a file O_DIRECTORY */
		int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			return tree_clean(sub, depth);
		if (type == DT_DIR)
			return false;
	}
	struct stat st;
	return type != DT_LNK && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode) && st.st_nlink == 1;
}

struct top {
	const struct build *b;
	const char *slug;
	bool *whole;
};

static bool visit_top(void *ctx, int dfd, const char *name, unsigned type)
{
	struct top *t = ctx;
	bool taken = strcmp(name, "index.html") == 0 || strcmp(name, "figures") == 0 ||
		     strcmp(name, "logs") == 0 ||
		     (t->b->opts->pdf && strcmp(name, "report.pdf") == 0) ||
		     own_resource(t->b, t->slug, name);
	if (!taken) {
		*t->whole = false; /* not kept, then, but linked without it */
		return true;
	}
	return entry_clean(dfd, name, type, 0);
}

/* May the previous output's folder of the reused report slug be taken
 * over (kept, or linked by copy_previous())?  Only when it is reached
 * through real folders from the output and everything in it that a
 * reuse takes (the rendered files, its bundle's files) is what a build
 * writes (entry_clean()): nothing in the previous output is trusted,
 * since anyone who could write there may have planted a link;
 * otherwise the report is rendered again and its folder replaced.
 * *whole says whether it holds nothing else (which movable() needs). */
bool previous_clean(const struct build *b, const char *slug, bool *whole)
{
	*whole = true;
	int dfd = b->prev_fd;
	char *path = xstrdup(slug);
	for (char *seg = path, *next; dfd >= 0 && seg; seg = next) {
		next = strchr(seg, '/');
		if (next)
			*next++ = '\0';
		int sub = openat(dfd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd != b->prev_fd)
			close(dfd);
		dfd = sub;
	}
	free(path);
	if (dfd < 0)
		return false;
	struct top t = {b, slug, whole};
	bool ok = each_entry(dfd, visit_top, &t);
	close(dfd);
	return ok;
}

/* May the previous output's folder of the reused report slug stay
 * where it is (outdir_keep())?  Only when previous_clean() found it
 * whole, holding nothing a build would not put there (the rendered
 * files, its bundle's files, which its key covers), and no other
 * report's folder lies below it. */
bool movable(const struct build *b, const char *slug)
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
	return !nested;
}

static void job_input(void *ctx, const char *shown)
{
	struct job *job = ctx;
	job->inputs = xrealloc(job->inputs, (job->ninputs + 1) * sizeof *job->inputs);
	job->inputs[job->ninputs++] = xstrdup(shown);
}

/* The key of r's page: the site's key, the report's text and slug, its
 * bundle's files and everything its runs would read.  False when
 * something could not be resolved: the report is then built as always,
 * which reports the problem. */
bool report_key(struct build *b, const struct report *r, struct job *job,
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
	/* the bibliography: a changed .bib changes the References */
	char **bibs = cites_files(r->meta, b->config.raw, r->dir, b->opts->root);
	for (size_t i = 0; bibs && bibs[i]; i++) {
		struct cache_key fh;
		cache_hasher_str(h, bibs[i]);
		if (cache_file_hash(b->disk, bibs[i], &fh))
			cache_hasher_key(h, &fh);
		else
			cache_hasher_str(h, "unreadable");
		job_input(job, bibs[i]);
	}
	strv_free(bibs);
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
struct cache_key site_key(struct build *b, const struct cache_key *parsers)
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
