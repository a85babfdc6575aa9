/* outdir.c: a build's output, written aside and swapped in. */
#define _GNU_SOURCE /* renameat2() */
#include "outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

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
			bool journal = strcmp(end, ".moved") == 0;
			if (pid <= 0 || (*end && !journal) || journal != (pass == 0) ||
			    pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
				continue;
			char *path = path_join(parent, names[i]);
			if (journal) {
				char *dir = xstrndup(path, strlen(path) - strlen(".moved"));
				undo_journal(path, dir, final);
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

void outdir_sweep(const char *out)
{
	char *final = path_resolve(out);
	if (!final)
		return;
	const char *slash = strrchr(final, '/');
	if (slash && slash[1]) {
		char *parent = slash == final ? xstrdup("/") : xstrndup(final, (size_t)(slash - final));
		char *prefix = xasprintf(".%s.tmp-", slash + 1);
		sweep_stale(parent, prefix, final);
		free(prefix);
		free(parent);
	}
	free(final);
}

int outdir_begin(struct outdir *o, const char *root, const char *out, struct diag *d)
{
	memset(o, 0, sizeof *o);
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
	if (!rel_ok(o, rel, d))
		return false;
	char *path = path_join(o->staging, rel);
	char *dir = path_dirname(path);
	/* never write through a link to the previous output (outdir_link) */
	unlink(path);
	bool ok = mkdir_p(dir) && file_write(path, data, len);
	if (!ok)
		diag_error(d, loc_line(NULL, 0), "%s/%s: cannot write: %s", o->shown, rel,
			   strerror(errno));
	free(dir);
	free(path);
	return ok;
}

bool outdir_copy(struct outdir *o, const char *rel, const char *src, struct diag *d)
{
	if (!rel_ok(o, rel, d))
		return false;
	char *path = path_join(o->staging, rel);
	char *dir = path_dirname(path);
	unlink(path);
	bool ok = mkdir_p(dir) && file_copy(src, path);
	if (!ok)
		diag_error(d, loc_line(src, 0), "cannot copy to %s/%s: %s", o->shown, rel,
			   strerror(errno));
	free(dir);
	free(path);
	return ok;
}

bool outdir_link(struct outdir *o, const char *rel, struct diag *d)
{
	char *path = path_join(o->staging, rel);
	char *src = path_join(o->final, rel);
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

void outdir_move(struct outdir *o, const char *rel)
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

bool outdir_commit(struct outdir *o, struct diag *d)
{
	if (o->nmoves == 0)
		return swap(o, d);
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

/* Hands the staging folder (the previous output) to a detached
 * grandchild, renamed to the grandchild's staging name; removes it here
 * when that cannot be done. */
static void discard(struct outdir *o)
{
	int go[2], tell[2];
	if (pipe2(go, O_CLOEXEC) != 0)
		goto here;
	if (pipe2(tell, O_CLOEXEC) != 0) {
		close(go[0]);
		close(go[1]);
		goto here;
	}
	pid_t child = fork();
	if (child == 0) {
		pid_t g = fork();
		if (g == 0) {
			/* no terminal, no output, no inherited descriptor */
			setsid();
			int null = open("/dev/null", O_RDWR);
			if (null >= 0) {
				dup2(null, 0);
				dup2(null, 1);
				dup2(null, 2);
			}
			if (dup2(go[0], 3) == 3)
				close_range(4, ~0U, 0);
			char c;
			if (read(3, &c, 1) == 1) {
				char *mine = xasprintf("%s%ld", o->prefix, (long)getpid());
				remove_marked(mine);
			}
			_exit(0);
		}
		ssize_t w = write(tell[1], &g, sizeof g);
		_exit(w == sizeof g ? 0 : 1);
	}
	close(go[0]);
	close(tell[1]);
	pid_t g = -1;
	if (child > 0) {
		if (read(tell[0], &g, sizeof g) != sizeof g)
			g = -1;
		waitpid(child, NULL, 0);
	}
	close(tell[0]);
	bool handed = false;
	if (g > 0) {
		char *theirs = xasprintf("%s%ld", o->prefix, (long)g);
		handed = rename(o->staging, theirs) == 0 && write(go[1], "x", 1) == 1;
		free(theirs);
	}
	close(go[1]); /* without the byte, the grandchild leaves */
	if (handed)
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
	memset(o, 0, sizeof *o);
}
