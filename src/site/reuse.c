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
#include <time.h>
#include <unistd.h>
#if defined(__linux__) && defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif
#endif

#include "base/fsutil.h"
#include "base/util.h"
#include "parse/runs.h"
#include "resolve/cite.h"
#include "site/manifest.h"

const struct value *prev_entry(const struct build *b, const char *slug)
{
	return b->prev_slugs ? manifest_slugs_find(b->prev_slugs, slug) : NULL;
}

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
	return there && prev_entry(b, r->slug);
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

/* A report folder's listing: a line per entry below it, its path there
 * and its kind, and for a regular file its size, inode and modify and
 * change times, from fstatat() alone (a 1 GB log is not read).  Its
 * digest changes when a file is added, removed, replaced or written in
 * place: writing, or putting the modify time back with utimensat(),
 * sets the change time, which no call sets to a chosen value. */
struct listing {
	char **lines;
	size_t n, cap;
	struct timespec newest; /* the latest change time among them */
};

static void listing_add(struct listing *ls, const char *prefix, const char *name,
			const struct stat *st)
{
	if (!ls)
		return;
	if (st && (st->st_ctim.tv_sec > ls->newest.tv_sec ||
		   (st->st_ctim.tv_sec == ls->newest.tv_sec &&
		    st->st_ctim.tv_nsec > ls->newest.tv_nsec)))
		ls->newest = st->st_ctim;
	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? 2 * ls->cap : 16;
		ls->lines = xrealloc(ls->lines, ls->cap * sizeof *ls->lines);
	}
	ls->lines[ls->n++] =
		st ? xasprintf("%s%s\tf %lld %llu %lld.%09ld %lld.%09ld", prefix, name,
			       (long long)st->st_size, (unsigned long long)st->st_ino,
			       (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
			       (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec)
		   : xasprintf("%s%s\td", prefix, name);
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The digest of the lines, sorted (a listing's order is the file
 * system's), and frees them. */
static struct cache_key listing_end(struct listing *ls)
{
	if (ls->n > 1)
		qsort(ls->lines, ls->n, sizeof *ls->lines, cmp_line);
	struct cache_hasher *h = cache_hasher_new();
	cache_hasher_str(h, "listing");
	for (size_t i = 0; i < ls->n; i++) {
		cache_hasher_str(h, ls->lines[i]);
		free(ls->lines[i]);
	}
	free(ls->lines);
	ls->lines = NULL;
	ls->n = ls->cap = 0;
	return cache_hasher_end(h);
}

/* A walk below a report's folder: how deep it is, and with a listing
 * (ls), the path there (prefix) and the same folder in the output the
 * build just replaced (old, or -1), whose names of the files the build
 * linked from it go first (one_name()). */
struct walk {
	int depth;
	struct listing *ls;
	const char *prefix;
	int old;
};

/* Is dfd/name a folder or a regular file with one name, as a build
 * writes them?  A folder's contents are checked in turn (tree_clean()). */
static bool entry_clean(int dfd, const char *name, unsigned type, const struct walk *w);

static bool visit(void *ctx, int dfd, const char *name, unsigned type)
{
	return entry_clean(dfd, name, type, ctx);
}

/* Is everything below the folder dfd (which it closes) what a build
 * writes: folders and regular files with one name each?  A symbolic
 * link, a FIFO or device, or a file with another name elsewhere (a hard
 * link to a file outside the output, which the build never makes in a
 * folder it keeps) is not; depth bounds a planted folder chain. */
static bool tree_clean(int dfd, const struct walk *w)
{
	bool ok = w->depth < 64 && each_entry(dfd, visit, (void *)w);
	close(dfd);
	return ok;
}

/* The file dfd/name (*st) has a second name: the one it had in the
 * output the build replaced (w->old), when copy_previous() linked it
 * from there.  That name goes now rather than when the replaced output
 * is removed later, so that the file's link count and change time
 * (which unlink() sets) are final before they are listed; *st is then
 * the file's again.  False when the second name is not that one. */
static bool one_name(int dfd, const char *name, const struct walk *w, struct stat *st)
{
	struct stat was;
	return w->old >= 0 && fstatat(w->old, name, &was, AT_SYMLINK_NOFOLLOW) == 0 &&
	       was.st_dev == st->st_dev && was.st_ino == st->st_ino &&
	       unlinkat(w->old, name, 0) == 0 && fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st->st_mode) && st->st_nlink == 1;
}

static bool entry_clean(int dfd, const char *name, unsigned type, const struct walk *w)
{
	if (type == DT_DIR || type == DT_UNKNOWN) {
		/* a link in its place fails O_NOFOLLOW, a file O_DIRECTORY */
		int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			listing_add(w->ls, w->prefix, name, NULL);
			struct walk below = {w->depth + 1, w->ls, NULL, -1};
			if (w->ls) {
				below.prefix = xasprintf("%s%s/", w->prefix, name);
				if (w->old >= 0)
					below.old = openat(w->old, name, O_RDONLY | O_DIRECTORY |
										 O_NOFOLLOW | O_CLOEXEC);
			}
			bool ok = tree_clean(sub, &below);
			if (below.old >= 0)
				close(below.old);
			free((char *)below.prefix);
			return ok;
		}
		if (type == DT_DIR)
			return false;
	}
	struct stat st;
	if (type == DT_LNK || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st.st_mode))
		return false;
	if (st.st_nlink != 1 && !(st.st_nlink == 2 && one_name(dfd, name, w, &st)))
		return false;
	listing_add(w->ls, w->prefix, name, &st);
	return true;
}

struct top {
	const struct build *b;
	const char *slug;
	bool *whole;
	struct walk w;
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
	return entry_clean(dfd, name, type, &t->w);
}

/* open_below() in one call where the kernel has openat2() (Linux 5.6):
 * every component a real folder, no link followed anywhere in the
 * path, as the walk below gives; -2 where it cannot say (no openat2,
 * a seccomp filter refusing it, or the memcheck build's
 * LOGDOWN_NO_OPENAT2), -1 where the folder is not there or a link is in
 * the way. */
static int open_below_at_once(int fd, const char *slug)
{
#if defined(SYS_openat2) && defined(RESOLVE_NO_SYMLINKS) && !defined(LOGDOWN_NO_OPENAT2)
	/* the walk's answer for "", "a//b", "./a" or "a/..": its own */
	if (!*slug)
		return -2;
	for (const char *s = slug; *s;) {
		size_t n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return -2;
		s += n;
		if (*s == '/' && !*++s)
			return -2;
	}
	struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH};
	long r = syscall(SYS_openat2, fd, slug, &how, sizeof how);
	if (r >= 0)
		return (int)r;
	return errno == ENOSYS || errno == EPERM || errno == EINVAL || errno == E2BIG ? -2 : -1;
#else
	(void)fd;
	(void)slug;
	return -2;
#endif
}

int open_below(int fd, const char *slug)
{
	int at_once = open_below_at_once(fd, slug);
	if (at_once != -2)
		return at_once;
	int dfd = fd;
	char *path = xstrdup(slug);
	for (char *seg = path, *next; dfd >= 0 && seg; seg = next) {
		next = strchr(seg, '/');
		if (next)
			*next++ = '\0';
		int sub = openat(dfd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd != fd)
			close(dfd);
		dfd = sub;
	}
	free(path);
	return dfd == fd ? -1 : dfd;
}

/* Walks the folder of the report slug in the output open at out_fd
 * (previous_clean()); with digest, lists it too, and with old_fd (the
 * output this build replaced, or -1) takes their old names from the
 * files linked from there (one_name()). */
static bool report_walk(const struct build *b, int out_fd, int old_fd, const char *slug,
			bool *whole, struct cache_key *digest, struct timespec *newest)
{
	*whole = true;
	if (out_fd < 0)
		return false;
	int dfd = open_below(out_fd, slug);
	if (dfd < 0)
		return false;
	struct listing ls = {NULL, 0, 0, {0, 0}};
	struct top t = {b, slug, whole, {0, digest ? &ls : NULL, "", -1}};
	if (digest && old_fd >= 0)
		t.w.old = open_below(old_fd, slug);
	bool ok = each_entry(dfd, visit_top, &t);
	close(dfd);
	if (t.w.old >= 0)
		close(t.w.old);
	if (newest)
		*newest = ls.newest;
	struct cache_key k = listing_end(&ls);
	if (digest)
		*digest = k;
	return ok;
}

/* May the previous output's folder of the reused report slug be taken
 * over (kept, or linked by copy_previous())?  Only when it is reached
 * through real folders from the output and everything in it that a
 * reuse takes (the rendered files, its bundle's files) is what a build
 * writes (entry_clean()): nothing in the previous output is trusted,
 * since anyone who could write there may have planted a link;
 * otherwise the report is rendered again and its folder replaced.
 * *whole says whether it holds nothing else (which movable() needs).
 * With digest, *digest is the digest of the listing of what it takes
 * (struct listing), which the build that wrote it kept with its key
 * (report_listed()): a regular file planted or changed since is seen. */
static struct timespec coarse_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME_COARSE, &t);
	return t;
}

/* Is a at b or after it? */
static bool not_before(struct timespec a, struct timespec b)
{
	return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec >= b.tv_nsec);
}

bool previous_clean(const struct build *b, const char *slug, bool *whole,
		    struct cache_key *digest, bool *settled)
{
	struct timespec began = coarse_now(), newest = {0, 0};
	bool ok = report_walk(b, b->prev_fd, -1, slug, whole, digest, settled ? &newest : NULL);
	if (settled)
		*settled = ok && digest && !not_before(newest, began);
	return ok;
}

/* The listings are taken after the commit, from the output in place,
 * so that they hold what the next build will find unless someone
 * changed it since: the old names of the files linked from the previous
 * output go first (one_name()), and a folder kept where it was must
 * list as it did when this build checked it (a change between that
 * check and now would otherwise be trusted).
 *
 * A change time is the clock's coarse time (the kernel's tick, a few
 * ms, on kernels before 6.13): a file written in the same tick as its
 * listing and again in that tick would list the same.  So a listing
 * counts only when every change time in it is before the time the walk
 * began; when one is not (a page this build wrote just now), the build
 * waits for the clock to pass it, at most 100 ms, and lists those
 * folders again. */
struct listing_turn {
	const struct kept *kept;
	int out, old;
	struct cache_key *digest;
	struct timespec *newest;
	bool *ok;
};

/* kept_listed()'s first listing of kept report i: any thread, each its
 * own folder and slots.  A folder kept where it was whose listing at
 * the check was settled (no change time as late as that walk) is not
 * listed again: that listing is recorded.  Had the folder changed since
 * the check, the next build's listing would differ from it, as it
 * would from a listing taken now, and the report is rendered again;
 * what is recorded is never what someone else wrote.  A folder of
 * 10,000 unchanged reports is then walked once a build, not twice. */
static void list_kept(struct build *b, size_t i, void *ctx)
{
	const struct listing_turn *t = ctx;
	if (t->kept[i].moved && t->kept[i].settled) {
		t->digest[i] = t->kept[i].listing;
		t->newest[i] = (struct timespec){0, 0};
		t->ok[i] = true;
		return;
	}
	bool whole;
	/* a folder kept where it was has no file linked from elsewhere */
	t->ok[i] = report_walk(b, t->out, t->kept[i].moved ? -1 : t->old, t->kept[i].slug, &whole,
			       &t->digest[i], &t->newest[i]);
}

struct cache_reports *kept_listed(struct build *b, const struct kept *kept, size_t n)
{
	struct cache_reports *next = cache_reports_new();
	int out = open(b->out.final, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int old = b->out.swapped && b->out.staging
			  ? open(b->out.staging, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			  : -1;
	struct cache_key *digest = xcalloc(n ? n : 1, sizeof *digest);
	struct timespec *newest = xcalloc(n ? n : 1, sizeof *newest);
	bool *ok = xcalloc(n ? n : 1, sizeof *ok);
	struct timespec began = coarse_now(), latest = {0, 0};
	bool again = false;
	/* on every thread: 10,000 folders listed, their files hashed */
	struct listing_turn turn = {kept, out, old, digest, newest, ok};
	if (out >= 0)
		run_parallel(b, n, list_kept, &turn);
	for (size_t i = 0; out >= 0 && i < n; i++) {
		if (ok[i] && not_before(newest[i], began)) {
			again = true;
			if (not_before(newest[i], latest))
				latest = newest[i];
		}
	}
	if (again) {
		struct timespec ms = {0, 1000000L};
		for (int k = 0; k < 100 && not_before(latest, coarse_now()); k++)
			nanosleep(&ms, NULL);
		struct timespec now = coarse_now();
		for (size_t i = 0; i < n; i++) {
			if (!ok[i] || !not_before(newest[i], began))
				continue;
			bool whole;
			ok[i] = report_walk(b, out, -1, kept[i].slug, &whole, &digest[i], &newest[i]) &&
				!not_before(newest[i], now);
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (!ok[i] || (kept[i].moved && memcmp(&digest[i], &kept[i].listing,
						       sizeof digest[i]) != 0))
			continue;
		struct cache_key listed = report_listed(&kept[i].key, &digest[i], &kept[i].entry);
		cache_reports_add(next, kept[i].slug, &listed);
	}
	free(ok);
	free(newest);
	free(digest);
	if (old >= 0)
		close(old);
	if (out >= 0)
		close(out);
	return next;
}

struct cache_key report_listed(const struct cache_key *key, const struct cache_key *digest,
			       const struct cache_key *entry)
{
	struct cache_hasher *h = cache_hasher_new();
	cache_hasher_str(h, "report, its files and its manifest entry");
	cache_hasher_key(h, key);
	cache_hasher_key(h, digest);
	cache_hasher_key(h, entry);
	return cache_hasher_end(h);
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

static void job_input(struct job *job, const char *shown)
{
	job->inputs = xrealloc(job->inputs, (job->ninputs + 1) * sizeof *job->inputs);
	job->inputs[job->ninputs++] = xstrdup(shown);
}

/* A result file report_runs_inputs() names, before it reads it. */
struct job_files {
	struct build *b;
	struct job *job;
};

static void job_result_file(void *ctx, const char *shown)
{
	struct job_files *f = ctx;
	job_input(f->job, shown);
	earlycopy_file(&f->job->early, f->b, shown);
}

/* The key of r's page: the site's key, the report's text and slug, its
 * bundle's files and everything its runs would read.  False when
 * something could not be resolved: the report is then built as always,
 * which reports the problem; false too when `take` deferred a file
 * (*deferred). */
bool report_key(struct build *b, const struct report *r, struct job *job,
		struct cache_key *out, enum key_take take, bool *deferred)
{
	bool again = take == KEY_AGAIN, later = false;
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
		if (!again)
			job_input(job, bibs[i]);
	}
	strv_free(bibs);
	/* everything the runs would read, kept apart for the memo's key */
	struct cache_hasher *rh = cache_hasher_new();
	cache_hasher_str(rh, "runs");
	struct diag *quiet = diag_new_deferred(b->d);
	struct job_files files = {b, job};
	ok = ok && report_runs_inputs(value_get(r->meta, "runs"), r->dir, b->root_real, b->parsers,
				      b->disk, &b->parsers_key, rh, again ? NULL : job_result_file,
				      &files, take == KEY_DEFER ? &later : NULL, quiet);
	ok = ok && diag_errors(quiet) + diag_warnings(quiet) == 0;
	diag_free(quiet);
	struct cache_key runs = cache_hasher_end(rh);
	cache_hasher_key(h, &runs);
	*out = cache_hasher_end(h);
	/* The memo's (resolve/memoize.h): the page's key less the report's
	 * body and bundle, so that an edit of the prose keeps it.  The
	 * front matter is in it whole: its runs, its formats, its vars. */
	struct cache_hasher *mh = cache_hasher_new();
	cache_hasher_str(mh, "memo");
	cache_hasher_key(mh, &b->site_key);
	cache_hasher_str(mh, r->path);
	cache_hasher_str(mh, b->opts->root);
	cache_hasher_bytes(mh, r->text, r->body_off);
	cache_hasher_key(mh, &runs);
	job->memo_key = cache_hasher_end(mh);
	if (deferred)
		*deferred = later;
	return ok && !later;
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
