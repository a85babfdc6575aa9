/* outdir.c: a build's output, written aside and swapped in. */
#define _GNU_SOURCE /* renameat2() */
#include "base/outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"

static const char marker_text[] =
	"This folder was written by logdown, which replaces it on every build.\n";

/* The project's source folder that holds path, if any. */
static const char *inside_sources(const char *root, const char *path)
{
	static const char *const sources[] = {"content", "static", "templates", "parsers"};
	for (size_t i = 0; i < ARRAY_LEN(sources); i++) {
		char *dir = path_join(root, sources[i]);
		bool inside = path_under(path, dir) != NULL;
		free(dir);
		if (inside)
			return sources[i];
	}
	return NULL;
}

static void refuse(struct diag *d, const char *out, const char *why)
{
	diag_error(d, loc_line(NULL, 0), "refusing to write the site to '%s': %s", out, why);
}

/* Why the canonical folder out may not be replaced, or NULL when it may.
 * The answer is owned by the caller. */
static char *refusal(const char *root, const char *out)
{
	if (strcmp(out, root) == 0)
		return xstrdup("it is the project root");
	if (path_under(root, out))
		return xstrdup("it holds the project");
	const char *source = inside_sources(root, out);
	if (source)
		return xasprintf("it lies inside %s/, among the sources", source);
	char *content = path_join(out, "content");
	bool has_content = is_dir(content);
	free(content);
	if (has_content)
		return xstrdup("it holds a content/ folder of sources");
	if (!path_exists(out))
		return NULL;
	if (!is_dir(out))
		return xstrdup("it exists and is not a folder");
	char *marker = path_join(out, OUTDIR_MARKER);
	bool ours = is_file(marker);
	free(marker);
	if (ours || dir_is_empty(out))
		return NULL;
	return xstrdup("logdown did not create it (no " OUTDIR_MARKER " marker inside); remove it "
		       "or choose another folder with -o");
}

/* Removes a staging folder, its marker last: one whose removal is cut
 * short keeps the marker, and the next build's sweep finishes it. */
static bool remove_marked(const char *dir)
{
	struct stat st;
	if (lstat(dir, &st) != 0)
		return errno == ENOENT;
	if (!S_ISDIR(st.st_mode))
		return unlink(dir) == 0; /* a link is removed, never followed */
	size_t n;
	char **names = dir_list(dir, &n);
	if (!names)
		return errno == ENOENT;
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(names[i], OUTDIR_MARKER) == 0)
			continue;
		char *path = path_join(dir, names[i]);
		ok &= remove_tree(path);
		free(path);
	}
	strv_free(names);
	return ok && remove_tree(dir);
}

/* Is rel a path logdown may write below the staging folder: relative,
 * without "." or ".." segments? */
static bool rel_safe(const char *rel)
{
	bool ok = *rel && *rel != '/';
	for (const char *s = rel; ok; s++) {
		size_t n = strcspn(s, "/");
		ok = !(n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'));
		s += n;
		if (!*s)
			break;
	}
	return ok;
}

/* A commit killed while moving folders of the output (final) into its
 * staging folder left the journal of the moves: each folder the output
 * lacks goes back (one the output has is the new site's, swapped in). */
static void undo_journal(const char *journal, const char *staging, const char *final)
{
	struct buf b = BUF_INIT;
	bool ours = file_read(journal, &b, NULL);
	buf_putc(&b, '\0');
	char *text = b.data;
	char *marker = path_join(staging, OUTDIR_MARKER);
	ours = ours && is_file(marker);
	free(marker);
	for (char *line = text, *next; ours && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!rel_safe(line))
			continue;
		char *from = path_join(staging, line), *to = path_join(final, line);
		if (!path_exists(to) && path_exists(from))
			rename(from, to);
		free(from);
		free(to);
	}
	buf_free(&b);
	unlink(journal);
}

/* The inode at path (not followed), or 0 when there is none. */
static ino_t ino_at(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 ? st.st_ino : 0;
}

/* One step of a commit that merges the new site into the output in
 * place (merge()): X exchanges staging/rel and final/rel, A adds
 * staging/rel to the output, G takes final/rel out into the staging
 * folder.  fresh and old are the inodes of the new build's entry and of
 * the previous output's, as they were before the step: whether a step
 * was done is read from which inode is where, so that undoing a journal
 * twice, or one whose last steps never ran, puts back exactly what moved. */
struct step {
	char kind;
	ino_t fresh, old;
	char *rel;
};

/* Are root and every folder on the way to rel's last segment below it
 * real folders (lstat(), no link)?  A journal is read from beside the
 * output, where anyone who can write there could have planted one: its
 * steps must not rename through a link to anywhere else. */
static bool real_path(const char *root, const char *rel)
{
	struct stat st;
	bool ok = lstat(root, &st) == 0 && S_ISDIR(st.st_mode);
	char *path = path_join(root, rel);
	for (char *s = path + strlen(root) + 1; ok && (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		ok = lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
		*s = '/';
	}
	free(path);
	return ok;
}

/* Undoes step s of a commit between staging and final: true when the
 * output is as it was before the step. */
static bool undo_step(const struct step *s, const char *staging, const char *final)
{
	if (!rel_safe(s->rel) || !real_path(staging, s->rel) || !real_path(final, s->rel))
		return false;
	char *from = path_join(staging, s->rel), *to = path_join(final, s->rel);
	bool ok = true;
	ino_t now = ino_at(to);
	if (s->kind == 'X' && now == s->fresh && s->fresh)
		ok = renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) == 0;
	else if (s->kind == 'A' && now == s->fresh && s->fresh && !ino_at(from))
		ok = rename(to, from) == 0;
	else if (s->kind == 'G' && !now && ino_at(from) == s->old && s->old)
		ok = rename(from, to) == 0;
	free(from);
	free(to);
	return ok;
}

/* A commit killed amid its merge left its journal (the staging folder's
 * name + ".journal"): every step is undone, last first, so that the
 * output is the previous site again before anything else happens. */
static void undo_merge(const char *journal, const char *staging, const char *final)
{
	struct buf b = BUF_INIT;
	bool ours = file_read(journal, &b, NULL);
	buf_putc(&b, '\0');
	char *marker = path_join(staging, OUTDIR_MARKER);
	ours = ours && is_file(marker);
	free(marker);
	struct step *steps = NULL;
	size_t n = 0;
	for (char *line = b.data, *next; ours && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		unsigned long long fresh, old;
		int at = 0;
		char kind;
		if (sscanf(line, "%c %llu %llu %n", &kind, &fresh, &old, &at) != 3 || !at)
			continue;
		steps = xrealloc(steps, (n + 1) * sizeof *steps);
		steps[n++] = (struct step){kind, (ino_t)fresh, (ino_t)old, line + at};
	}
	for (size_t i = n; i-- > 0;)
		undo_step(&steps[i], staging, final);
	free(steps);
	buf_free(&b);
	unlink(journal);
}

/* Removes staging folders of builds that were killed, and of children
 * removing a previous output that were: they carry the marker and their
 * process is gone.  Their journals of moves are undone first. */
static void sweep_stale(const char *parent, const char *prefix, const char *final)
{
	size_t n;
	char **names = dir_list(parent, &n);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; names && i < n; i++) {
			if (!str_has_prefix(names[i], prefix))
				continue;
			char *end;
			long pid = strtol(names[i] + strlen(prefix), &end, 10);
			bool moved = strcmp(end, ".moved") == 0, merged = strcmp(end, ".journal") == 0;
			bool journal = moved || merged;
			if (pid <= 0 || (*end && !journal) || journal != (pass == 0) ||
			    pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
				continue;
			char *path = path_join(parent, names[i]);
			if (journal) {
				char *dir = xstrndup(path, strlen(path) - strlen(end));
				if (moved)
					undo_journal(path, dir, final);
				else
					undo_merge(path, dir, final);
				free(dir);
			} else {
				/* without the marker only when empty: a build killed
				 * between making it and marking it */
				char *marker = path_join(path, OUTDIR_MARKER);
				if (is_file(marker))
					remove_marked(path);
				else
					rmdir(path);
				free(marker);
			}
			free(path);
		}
	}
	strv_free(names);
}

/* The lock that keeps a second build out of the output while one
 * writes it: flock(2) on PARENT/.BASE.lock, a file beside the output
 * that is never removed (removing a lock file lets two processes hold
 * "the" lock at once).  The kernel lets go of it however the build
 * ends.  Returns the descriptor, or -1 with *busy set when another
 * process holds it. */
static int take_lock(const char *parent, const char *base, bool create, bool *busy)
{
	*busy = false;
	char *path = xasprintf("%s/.%s.lock", parent, base);
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0644);
	free(path);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;
		*busy = e == EWOULDBLOCK;
		close(fd);
		fd = -1;
		errno = e;
	}
	return fd;
}

int outdir_lock(const char *out, bool *busy)
{
	*busy = false;
	char *final = path_resolve(out);
	const char *slash = final ? strrchr(final, '/') : NULL;
	int fd = -1;
	if (slash && slash[1]) {
		char *parent = slash == final ? xstrdup("/") : xstrndup(final, (size_t)(slash - final));
		fd = take_lock(parent, slash + 1, false, busy);
		free(parent);
	}
	free(final);
	return fd;
}

void outdir_sweep(const char *out)
{
	char *final = path_resolve(out);
	if (!final)
		return;
	const char *slash = strrchr(final, '/');
	if (slash && slash[1]) {
		char *parent = slash == final ? xstrdup("/") : xstrndup(final, (size_t)(slash - final));
		char *prefix = xasprintf(".%s.tmp-", slash + 1);
		/* under the lock: a journal of a live build's commit is not
		 * a dead one's, and its commit is not undone under it */
		bool busy;
		int fd = take_lock(parent, slash + 1, false, &busy);
		if (!busy)
			sweep_stale(parent, prefix, final);
		if (fd >= 0)
			close(fd);
		free(prefix);
		free(parent);
	}
	free(final);
}

int outdir_begin(struct outdir *o, const char *root, const char *out, struct diag *d)
{
	memset(o, 0, sizeof *o);
	o->lock = -1;
	/* Every check, the staging folder and the swap work on one canonical
	 * path: "x/../site", "site/" and a link to the real folder all mean
	 * the folder they lead to. */
	char *rroot = path_real(root);
	char *final = path_resolve(out);
	int rc = EXIT_USAGE;
	if (!rroot || !final) {
		diag_error(d, loc_line(NULL, 0), "cannot resolve '%s': %s", rroot ? out : root,
			   strerror(errno));
		goto fail;
	}
	char *why = refusal(rroot, final);
	if (why) {
		refuse(d, out, why);
		free(why);
		goto fail;
	}

	/* The staging folder is a hidden sibling, so that the swap stays on
	 * one file system. */
	char *parent = path_dirname(final);
	const char *base = strrchr(final, '/') + 1;
	char *prefix = xasprintf(".%s.tmp-", base);
	o->final = final;
	o->shown = xstrdup(out);
	o->staging = xasprintf("%s/%s%ld", parent, prefix, (long)getpid());
	o->prefix = xasprintf("%s/%s", parent, prefix);
	final = NULL;
	bool ok = mkdir_p(parent);
	if (ok) {
		bool busy;
		o->lock = take_lock(parent, base, true, &busy);
		if (busy) {
			diag_error(d, loc_line(NULL, 0),
				   "another build is writing %s (wait for it to end, or build into "
				   "another folder with -o)",
				   out);
			free(prefix);
			free(parent);
			outdir_end(o);
			free(rroot);
			return EXIT_BUSY;
		}
		if (o->lock < 0) {
			int e = errno;
			diag_error(d, loc_line(NULL, 0), "%s/.%s.lock: cannot lock: %s", parent, base,
				   strerror(e));
			free(prefix);
			free(parent);
			outdir_end(o);
			free(rroot);
			return EXIT_IO;
		}
		sweep_stale(parent, prefix, o->final);
		remove_marked(o->staging);
		/* Made here and now, not found: whatever the build writes goes
		 * below a folder logdown created, through folders it created,
		 * never through a link someone left in its place. */
		char *marker = path_join(o->staging, OUTDIR_MARKER);
		ok = mkdir(o->staging, 0755) == 0 &&
		     file_write(marker, marker_text, sizeof marker_text - 1);
		free(marker);
	}
	free(prefix);
	free(parent);
	if (!ok) {
		diag_error(d, loc_line(NULL, 0), "%s: cannot create: %s", o->staging, strerror(errno));
		rc = EXIT_IO;
		outdir_end(o);
		goto fail;
	}
	free(rroot);
	return EXIT_OK;
fail:
	free(rroot);
	free(final);
	return rc;
}

/* A path the build writes below the staging folder must stay below it:
 * relative, without "." or ".." segments.  Callers make these paths
 * from slugs and file names; a bad one is a bug, reported, not obeyed. */
static bool rel_ok(struct outdir *o, const char *rel, struct diag *d)
{
	bool ok = rel_safe(rel);
	if (!ok)
		diag_error(d, loc_line(NULL, 0), "%s/%s: refusing to write outside the site", o->shown,
			   rel);
	return ok;
}

bool outdir_write(struct outdir *o, const char *rel, const char *data, size_t len,
		  struct diag *d)
{
	struct span one = {data, len};
	return outdir_write_spans(o, rel, &one, 1, d);
}

bool outdir_write_spans(struct outdir *o, const char *rel, const struct span *parts, size_t n,
			struct diag *d)
{
	if (!rel_ok(o, rel, d))
		return false;
	char *path = path_join(o->staging, rel);
	char *dir = path_dirname(path);
	/* never write through a link to the previous output (outdir_link);
	 * with none made, nothing to remove (10,000 pages: as many failed
	 * unlink() calls) */
	if (atomic_load(&o->linked))
		unlink(path);
	bool ok = mkdir_p(dir) && file_write_spans(path, parts, n);
	if (!ok)
		diag_error(d, loc_line(NULL, 0), "%s/%s: cannot write: %s", o->shown, rel,
			   strerror(errno));
	free(dir);
	free(path);
	return ok;
}

/* Copies src (by path), or the file open at fd when fd >= 0, to rel;
 * shown names the source in the diagnostic. */
static bool copy_in(struct outdir *o, const char *rel, const char *src, int fd, const char *shown,
		    struct diag *d)
{
	if (!rel_ok(o, rel, d))
		return false;
	char *path = path_join(o->staging, rel);
	char *dir = path_dirname(path);
	if (atomic_load(&o->linked))
		unlink(path);
	bool ok = mkdir_p(dir) && (fd >= 0 ? file_copy_fd(fd, path) : file_copy(src, path));
	if (!ok)
		diag_error(d, loc_line(shown, 0), "cannot copy to %s/%s: %s", o->shown, rel,
			   strerror(errno));
	free(dir);
	free(path);
	return ok;
}

bool outdir_copy(struct outdir *o, const char *rel, const char *src, struct diag *d)
{
	return copy_in(o, rel, src, -1, src, d);
}

bool outdir_copy_fd(struct outdir *o, const char *rel, int fd, const char *shown,
		    struct diag *d)
{
	return copy_in(o, rel, NULL, fd, shown, d);
}

bool outdir_move_in(struct outdir *o, const char *rel, const char *from)
{
	if (!rel_safe(rel))
		return false;
	char *path = path_join(o->staging, rel);
	char *dir = path_dirname(path);
	/* rename() replaces a link to the previous output (outdir_link())
	 * rather than writing through it */
	bool ok = mkdir_p(dir) && rename(from, path) == 0;
	free(dir);
	free(path);
	return ok;
}

bool outdir_link(struct outdir *o, const char *rel, struct diag *d)
{
	char *path = path_join(o->staging, rel);
	char *src = path_join(o->final, rel);
	/* before the link: a write after it unlinks first */
	atomic_store(&o->linked, true);
	bool ok = link(src, path) == 0;
	if (!ok && errno == ENOENT) {
		char *dir = path_dirname(path);
		ok = mkdir_p(dir) && link(src, path) == 0;
		free(dir);
	}
	/* a file system without hard links, or another one: copy */
	if (!ok && (errno == EXDEV || errno == EPERM || errno == EMLINK || errno == ENOTSUP))
		ok = file_copy(src, path);
	if (!ok)
		diag_error(d, loc_line(src, 0), "cannot link or copy to %s/%s: %s", o->shown, rel,
			   strerror(errno));
	free(src);
	free(path);
	return ok;
}

void outdir_keep(struct outdir *o, const char *rel)
{
	if (o->nmoves == o->moves_cap) {
		o->moves_cap = o->moves_cap ? 2 * o->moves_cap : 64;
		o->moves = xrealloc(o->moves, o->moves_cap * sizeof *o->moves);
	}
	o->moves[o->nmoves++] = xstrdup(rel);
}

/* Moves the first n folders of o->moves back into the output. */
static void unmove(struct outdir *o, size_t n, struct diag *d)
{
	for (size_t i = n; i-- > 0;) {
		char *from = path_join(o->staging, o->moves[i]);
		char *to = path_join(o->final, o->moves[i]);
		if (rename(from, to) != 0)
			diag_error(d, loc_line(NULL, 0), "%s/%s: cannot put back from %s: %s", o->shown,
				   o->moves[i], from, strerror(errno));
		free(from);
		free(to);
	}
}

/* Moves the folders outdir_move() named from the output into the
 * staging folder, journaled (see undo_journal()).  On failure every one
 * is put back. */
static bool move_over(struct outdir *o, const char *journal, struct diag *d)
{
	size_t len = 0;
	for (size_t i = 0; i < o->nmoves; i++)
		len += strlen(o->moves[i]) + 1;
	char *text = xmalloc(len + 1), *p = text;
	for (size_t i = 0; i < o->nmoves; i++) {
		size_t m = strlen(o->moves[i]);
		memcpy(p, o->moves[i], m);
		p[m] = '\n';
		p += m + 1;
	}
	bool ok = rel_safe(o->moves[0]) && file_write(journal, text, len);
	free(text);
	if (!ok) {
		diag_error(d, loc_line(NULL, 0), "%s: cannot write: %s", journal, strerror(errno));
		return false;
	}
	size_t i = 0;
	for (; ok && i < o->nmoves; i++) {
		ok = rel_safe(o->moves[i]);
		char *from = path_join(o->final, o->moves[i]);
		char *to = path_join(o->staging, o->moves[i]);
		errno = EINVAL;
		if (ok && strchr(o->moves[i], '/')) {
			char *dir = path_dirname(to);
			ok = mkdir_p(dir);
			free(dir);
		}
		ok = ok && rename(from, to) == 0;
		if (!ok)
			diag_error(d, loc_line(NULL, 0), "%s/%s: cannot move into the new site: %s",
				   o->shown, o->moves[i], strerror(errno));
		free(from);
		free(to);
	}
	if (!ok) {
		unmove(o, i - 1, d);
		unlink(journal);
	}
	return ok;
}

static bool swap(struct outdir *o, struct diag *d)
{
	if (!path_exists(o->final)) {
		if (rename(o->staging, o->final) != 0) {
			diag_error(d, loc_line(NULL, 0), "%s: cannot create: %s", o->shown,
				   strerror(errno));
			return false;
		}
		free(o->staging);
		o->staging = NULL;
		return true;
	}
	/* One atomic exchange: there is never a moment without a site, and
	 * the previous one ends up in the staging folder, removed below. */
	if (renameat2(AT_FDCWD, o->staging, AT_FDCWD, o->final, RENAME_EXCHANGE) == 0) {
		o->swapped = true;
		return true;
	}
	if (errno != EINVAL && errno != ENOSYS) {
		diag_error(d, loc_line(NULL, 0), "%s: cannot replace: %s", o->shown, strerror(errno));
		return false;
	}
	/* A file system without the exchange: move the old site aside, move
	 * the new one in, and put the old one back if that fails. */
	char *old = xasprintf("%s.old", o->staging);
	bool ok = rename(o->final, old) == 0;
	if (!ok) {
		diag_error(d, loc_line(NULL, 0), "%s: cannot move aside: %s", o->shown, strerror(errno));
	} else if (rename(o->staging, o->final) != 0) {
		int e = errno;
		if (rename(old, o->final) != 0)
			diag_error(d, loc_line(NULL, 0), "the previous site is kept in %s", old);
		diag_error(d, loc_line(NULL, 0), "%s: cannot replace: %s", o->shown, strerror(e));
		ok = false;
	} else {
		free(o->staging);
		o->staging = old; /* removed by outdir_end() */
		old = NULL;
		o->swapped = true;
	}
	free(old);
	return ok;
}

/* LOGDOWN_TEST_KILL_AT, for tests only (tests/e2e/test_swap.c): "merge:N"
 * kills the build with SIGKILL after the Nth step of its merge, the
 * journal written ("merge:0": before any step), so that a commit cut
 * short at that moment is seen to be undone. */
static long kill_at(void)
{
	const char *v = test_hook_env("LOGDOWN_TEST_KILL_AT");
	if (!v || !str_has_prefix(v, "merge:"))
		return -1;
	return strtol(v + strlen("merge:"), NULL, 10);
}

static int cmp_rel(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Is rel one of the kept folders (o->moves, sorted)? */
static bool is_kept(const struct outdir *o, const char *rel)
{
	return bsearch(&rel, o->moves, o->nmoves, sizeof *o->moves, cmp_rel) != NULL;
}

/* Does a kept folder lie below rel? */
static bool holds_kept(const struct outdir *o, const char *rel)
{
	char *below = xasprintf("%s/", rel);
	size_t lo = 0, hi = o->nmoves;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(o->moves[mid], below) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	bool found = lo < o->nmoves && str_has_prefix(o->moves[lo], below);
	free(below);
	return found;
}

static bool real_dir(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void add_step(struct step **steps, size_t *n, char kind, const char *staging,
		     const char *final, const char *rel)
{
	char *from = path_join(staging, rel), *to = path_join(final, rel);
	*steps = xrealloc(*steps, (*n + 1) * sizeof **steps);
	(*steps)[(*n)++] = (struct step){kind, kind == 'G' ? 0 : ino_at(from),
					 kind == 'A' ? 0 : ino_at(to), xstrdup(rel)};
	free(from);
	free(to);
}

/* The steps that make the output (final) the new site (staging) while
 * leaving the kept folders where they are: below rel, each entry of the
 * new site is exchanged with the output's or added to it; a folder that
 * holds kept ones is merged entry by entry instead; what the output has
 * and the new site has not goes (but kept folders). */
static bool plan(const struct outdir *o, const char *rel, struct step **steps, size_t *n)
{
	char *sdir = *rel ? path_join(o->staging, rel) : xstrdup(o->staging);
	char *fdir = *rel ? path_join(o->final, rel) : xstrdup(o->final);
	size_t ns, nf;
	char **snames = dir_list(sdir, &ns), **fnames = dir_list(fdir, &nf);
	bool ok = snames && fnames;
	for (size_t i = 0, j = 0; ok && (i < ns || j < nf);) {
		int c = i >= ns ? 1 : j >= nf ? -1 : strcmp(snames[i], fnames[j]);
		const char *name = c <= 0 ? snames[i] : fnames[j];
		char *child = *rel ? path_join(rel, name) : xstrdup(name);
		if (!*rel && strcmp(name, OUTDIR_MARKER) == 0) {
			/* exchanged last, below */
		} else if (c < 0) {
			add_step(steps, n, 'A', o->staging, o->final, child);
		} else if (c > 0) {
			if (!is_kept(o, child) && !holds_kept(o, child))
				add_step(steps, n, 'G', o->staging, o->final, child);
		} else {
			char *sp = path_join(o->staging, child), *fp = path_join(o->final, child);
			if (holds_kept(o, child) && real_dir(sp) && real_dir(fp))
				ok = plan(o, child, steps, n);
			else
				add_step(steps, n, 'X', o->staging, o->final, child);
			free(sp);
			free(fp);
		}
		i += c <= 0;
		j += c >= 0;
		free(child);
	}
	strv_free(snames);
	strv_free(fnames);
	free(sdir);
	free(fdir);
	return ok;
}

/* Can this file system exchange two entries (renameat2 RENAME_EXCHANGE)?
 * Asked of two files of the staging folder, exchanged and put back. */
static bool can_exchange(const struct outdir *o)
{
	char *a = path_join(o->staging, OUTDIR_MARKER), *b = path_join(o->staging, ".probe");
	bool ok = file_write(b, "", 0) &&
		  renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0 &&
		  renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0;
	unlink(b);
	free(a);
	free(b);
	return ok;
}

/* Makes the output the new site without taking the kept folders out of
 * it: the steps of plan(), journaled first, each one an atomic rename,
 * so that a page in both sites can be opened at every moment (it is the
 * previous one or the new one), and the marker last, which tells the
 * cache (cache_reports_load()) that the output changed.  On failure the
 * steps done are undone; a process killed amid them leaves the journal,
 * from which the next build (or clean, or serve's sweeper) undoes them
 * before anything else (undo_merge()).  Afterwards the staging folder
 * holds what the new site replaced, for outdir_end() to remove. */
static bool merge(struct outdir *o, struct diag *d)
{
	/* the folders that hold kept ones, in the new site too */
	for (size_t i = 0; i < o->nmoves; i++) {
		if (!strchr(o->moves[i], '/'))
			continue;
		char *in = path_join(o->staging, o->moves[i]);
		char *up = path_dirname(in);
		mkdir_p(up);
		free(up);
		free(in);
	}
	struct step *planned = NULL;
	size_t n = 0;
	bool ok = plan(o, "", &planned, &n);
	/* new pages first, then the changed ones (the index that links the
	 * new ones), then the removed ones, which the index no longer
	 * links, and the marker last */
	struct step *steps = xmalloc((n + 1) * sizeof *steps);
	size_t m = 0;
	for (const char *kind = "AXG"; *kind; kind++)
		for (size_t i = 0; i < n; i++)
			if (planned[i].kind == *kind)
				steps[m++] = planned[i];
	free(planned);
	add_step(&steps, &n, 'X', o->staging, o->final, OUTDIR_MARKER);
	struct buf text = BUF_INIT;
	for (size_t i = 0; ok && i < n; i++) {
		char line[64];
		int len = snprintf(line, sizeof line, "%c %llu %llu ", steps[i].kind,
				   (unsigned long long)steps[i].fresh, (unsigned long long)steps[i].old);
		buf_put(&text, line, (size_t)len);
		buf_put(&text, steps[i].rel, strlen(steps[i].rel));
		buf_putc(&text, '\n');
	}
	char *journal = xasprintf("%s.journal", o->staging);
	if (!ok)
		diag_error(d, loc_line(NULL, 0), "%s: cannot list: %s", o->shown, strerror(errno));
	else if (!(ok = file_write(journal, text.data, text.len)))
		diag_error(d, loc_line(NULL, 0), "%s: cannot write: %s", journal, strerror(errno));
	buf_free(&text);
	long kill_after = kill_at();
	size_t done = 0;
	for (; ok && done < n; done++) {
		if ((long)done == kill_after)
			raise(SIGKILL);
		const struct step *s = &steps[done];
		char *from = path_join(o->staging, s->rel), *to = path_join(o->final, s->rel);
		ok = s->kind == 'X'   ? renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) == 0
		     : s->kind == 'A' ? rename(from, to) == 0
				      : rename(to, from) == 0;
		if (!ok)
			diag_error(d, loc_line(NULL, 0), "%s/%s: cannot replace: %s", o->shown, s->rel,
				   strerror(errno));
		free(from);
		free(to);
	}
	if (!ok) {
		for (size_t i = done; i-- > 0;)
			if (!undo_step(&steps[i], o->staging, o->final))
				diag_error(d, loc_line(NULL, 0), "%s/%s: cannot put back: %s", o->shown,
					   steps[i].rel, strerror(errno));
	} else {
		o->swapped = true;
	}
	if ((long)n == kill_after)
		raise(SIGKILL);
	unlink(journal);
	free(journal);
	for (size_t i = 0; i < n; i++)
		free(steps[i].rel);
	free(steps);
	return ok;
}

static bool commit_now(struct outdir *o, struct diag *d)
{
	if (o->nmoves == 0)
		return swap(o, d);
	qsort(o->moves, o->nmoves, sizeof *o->moves, cmp_rel);
	if (can_exchange(o))
		return merge(o, d);
	/* Without the exchange (some network and FUSE file systems): the
	 * kept folders move into the new site, which then replaces the
	 * output with two renames; pages are missing for that moment. */
	char *journal = xasprintf("%s.moved", o->staging);
	bool ok = move_over(o, journal, d);
	if (ok) {
		ok = swap(o, d);
		if (!ok)
			unmove(o, o->nmoves, d);
		unlink(journal);
	}
	free(journal);
	return ok;
}

bool outdir_commit(struct outdir *o, struct diag *d)
{
	bool ok = commit_now(o, d);
	/* after the journal is gone: what it does is never undone */
	if (ok && o->committed)
		o->committed(o->committed_ctx);
	return ok;
}

/* --- handing the previous output to a detached process --- */

/* How long the build waits for the remover to take the previous output
 * (a spawn and an exec: milliseconds) before removing it itself. */
#define HANDOFF_MS 3000

/* The remover: coreutils rm, the one program every system has, run by
 * the shell that waits for it to be handed the folder. */
#define RM_PATH "/bin/rm"
#define SH_PATH "/bin/sh"

/* The remover's shell script.  $1 is the staging prefix, $2 rm, $3 the
 * marker's name; its folder is the prefix and its own pid ($$, the pid
 * the parent was given), so that nothing but the parent's folder can be
 * named.  It waits on standard input for the line "go" (nothing: the
 * parent kept the folder), then runs rm on the old output, the marker
 * and the folder, in that order, so that an rm killed half-way leaves a
 * marked folder (or an empty one) of a dead process, which the next
 * build sweeps.  Descriptor 3 is the parent's `tell`: "y" as rm starts,
 * "!" when rm cannot be run; closed without a byte, the shell never ran
 * (posix_spawn() does not always report an exec that failed: under
 * valgrind it is a fork). */
static const char remover[] =
	"IFS= read -r go || exit 0; [ \"$go\" = go ] || exit 0; "
	"[ -x \"$2\" ] || { printf '!' >&3; exit 1; }; "
	"printf y >&3; exec \"$2\" -rf -- \"$1$$/old\" \"$1$$/$3\" \"$1$$\" 3>&-";

/* LOGDOWN_TEST_DISCARD, for tests only (tests/e2e/test_swap.c): makes
 * the handoff fail at each of its steps, so that the fallback is seen
 * to work.  "no-spawn": the shell cannot be started; "stall-exec": the
 * remover gets the folder but never runs rm; "no-exec": rm cannot be
 * run. */
enum handoff_fault { FAULT_NONE, FAULT_NO_SPAWN, FAULT_STALL_EXEC, FAULT_NO_EXEC };

static enum handoff_fault handoff_fault(void)
{
	const char *v = test_hook_env("LOGDOWN_TEST_DISCARD");
	if (!v)
		return FAULT_NONE;
	return strcmp(v, "no-spawn") == 0     ? FAULT_NO_SPAWN
	       : strcmp(v, "stall-exec") == 0 ? FAULT_STALL_EXEC
	       : strcmp(v, "no-exec") == 0    ? FAULT_NO_EXEC
					      : FAULT_NONE;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Reads len bytes from fd, waiting until deadline (now_ms()) at most.
 * Returns how many came before every writer closed the pipe (len when
 * all did), or -1 on timeout or error. */
static ssize_t read_until(int fd, void *p, size_t len, long deadline)
{
	size_t got = 0;
	while (got < len) {
		long left = deadline - now_ms();
		struct pollfd pfd = {fd, POLLIN, 0};
		int r = left > 0 ? poll(&pfd, 1, (int)left) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		ssize_t n = read(fd, (char *)p + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* The removers this process started, to be reaped (a serve session
 * starts one a build); a slot is 0 when free. */
static pid_t removers[64];

static void reap_removers(void)
{
	for (size_t i = 0; i < ARRAY_LEN(removers); i++)
		if (removers[i] > 0 && waitpid(removers[i], NULL, WNOHANG) != 0)
			removers[i] = 0;
}

static void remember_remover(pid_t pid)
{
	for (size_t i = 0; i < ARRAY_LEN(removers); i++)
		if (removers[i] == 0) {
			removers[i] = pid;
			return;
		}
	/* all 64 still running: this one is reaped when the process ends */
}

/* Starts the remover (/bin/sh running `remover`), in a session of its
 * own (Ctrl-C in the terminal does not stop it), with no signal
 * blocked, its standard input go, its output /dev/null, descriptor 3
 * tell and nothing else: not the build's lock, not serve's sockets.
 * posix_spawn() copies nothing of this process (a fork of a serve that
 * holds a parsed 1 GB log copied its page tables: 80 ms a build).
 * Returns its pid, or -1. */
static pid_t spawn_remover(const struct outdir *o, int go, int tell, enum handoff_fault fault)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	if (posix_spawn_file_actions_init(&fa) != 0)
		return -1;
	if (posix_spawnattr_init(&at) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	sigset_t none;
	sigemptyset(&none);
	bool ok = posix_spawn_file_actions_adddup2(&fa, go, 0) == 0 &&
		  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) == 0 &&
		  posix_spawn_file_actions_adddup2(&fa, 1, 2) == 0 &&
		  posix_spawn_file_actions_adddup2(&fa, tell, 3) == 0 &&
		  posix_spawn_file_actions_addclosefrom_np(&fa, 4) == 0 &&
		  posix_spawnattr_setsigmask(&at, &none) == 0 &&
		  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK) == 0;
	char sh[] = "sh", c[] = "-c", name[] = "logdown-rm", marker[] = OUTDIR_MARKER;
	char rm[] = RM_PATH, no_rm[] = "/nonexistent/rm";
	char stall[] = "IFS= read -r go; exec sleep 3600";
	char *argv[] = {sh,	  c,	       fault == FAULT_STALL_EXEC ? stall : (char *)remover,
			name,	  o->prefix, fault == FAULT_NO_EXEC ? no_rm : rm,
			marker, NULL};
	char *env[] = {NULL};
	pid_t pid = -1;
	if (ok && posix_spawn(&pid, fault == FAULT_NO_SPAWN ? "/nonexistent/sh" : SH_PATH, &fa,
			      &at, argv, env) != 0)
		pid = -1;
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

/* Moves the previous output (o->staging) to dir/old, dir being the
 * remover's staging name, marked, and tells the remover to go.  Returns
 * what holds the previous output now (dir or o->staging), for the
 * caller to remove when *sent is false.  Caller frees. */
static char *hand_over(struct outdir *o, const char *dir, int go, bool *sent)
{
	*sent = false;
	char *marker = path_join(dir, OUTDIR_MARKER);
	char *old = path_join(dir, "old");
	char *holder = xstrdup(o->staging);
	if (mkdir(dir, 0700) != 0) {
		free(marker);
		free(old);
		return holder;
	}
	if (!file_write(marker, marker_text, sizeof marker_text - 1) ||
	    rename(o->staging, old) != 0) {
		remove_tree(dir);
		free(marker);
		free(old);
		return holder;
	}
	free(holder);
	holder = xstrdup(dir);
	/* a remover that is gone must not kill this process with SIGPIPE */
	*sent = send(go, "go\n", 3, MSG_NOSIGNAL) == 3;
	free(marker);
	free(old);
	return holder;
}

/* Hands the staging folder (the previous output) to a detached remover
 * that removes it with rm while this process goes on.  Every wait is
 * bounded (HANDOFF_MS in all); whenever the handoff fails or stalls,
 * the remover is killed before it could touch anything and the folder
 * is removed here.  Nothing but the previous output is ever removed:
 * the remover is told to go only once the folder is in its place. */
static void discard(struct outdir *o)
{
	enum handoff_fault fault = handoff_fault();
	reap_removers();
	int tell[2], go[2];
	if (pipe2(tell, O_CLOEXEC) != 0)
		goto here;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0) {
		close(tell[0]);
		close(tell[1]);
		goto here;
	}
	long deadline = now_ms() + HANDOFF_MS;
	pid_t g = spawn_remover(o, go[1], tell[1], fault);
	close(tell[1]);
	close(go[1]);
	char *holder = NULL;
	bool sent = false;
	if (g > 0) {
		remember_remover(g);
		char *dir = xasprintf("%s%ld", o->prefix, (long)g);
		holder = hand_over(o, dir, go[0], &sent);
		free(dir);
	}
	close(go[0]); /* without "go", the remover leaves */
	if (sent) {
		/* "y": rm runs; "!", or no byte at all: it does not */
		char c = 0;
		ssize_t n = read_until(tell[0], &c, 1, deadline);
		if (n < 0)
			kill(g, SIGKILL); /* it holds tell open: alive, and not rm yet */
		sent = n == 1 && c == 'y';
	}
	close(tell[0]);
	if (!sent && holder)
		remove_marked(holder);
	free(holder);
	if (g > 0)
		return;
here:
	remove_marked(o->staging);
}

void outdir_end(struct outdir *o)
{
	if (o->staging && o->swapped)
		discard(o);
	else if (o->staging)
		remove_marked(o->staging);
	free(o->staging);
	free(o->final);
	free(o->shown);
	free(o->prefix);
	for (size_t i = 0; i < o->nmoves; i++)
		free(o->moves[i]);
	free(o->moves);
	if (o->lock >= 0)
		close(o->lock); /* last: the output is left as it will stay */
	memset(o, 0, sizeof *o);
	o->lock = -1;
}
