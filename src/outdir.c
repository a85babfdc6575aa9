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

/* Removes staging folders of builds that were killed: they carry the
 * marker and their process is gone. */
static void sweep_stale(const char *parent, const char *prefix)
{
	size_t n;
	char **names = dir_list(parent, &n);
	for (size_t i = 0; names && i < n; i++) {
		if (!str_has_prefix(names[i], prefix))
			continue;
		long pid = strtol(names[i] + strlen(prefix), NULL, 10);
		if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char *dir = path_join(parent, names[i]);
		char *marker = path_join(dir, OUTDIR_MARKER);
		if (is_file(marker))
			remove_tree(dir);
		free(marker);
		free(dir);
	}
	strv_free(names);
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
	final = NULL;
	bool ok = mkdir_p(parent);
	if (ok) {
		sweep_stale(parent, prefix);
		remove_tree(o->staging);
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
	bool ok = *rel != '/';
	for (const char *s = rel; ok; s++) {
		size_t n = strcspn(s, "/");
		ok = !(n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'));
		s += n;
		if (!*s)
			break;
	}
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

bool outdir_commit(struct outdir *o, struct diag *d)
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
	if (renameat2(AT_FDCWD, o->staging, AT_FDCWD, o->final, RENAME_EXCHANGE) == 0)
		return true;
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
	}
	free(old);
	return ok;
}

void outdir_end(struct outdir *o)
{
	if (o->staging)
		remove_tree(o->staging);
	free(o->staging);
	free(o->final);
	free(o->shown);
	memset(o, 0, sizeof *o);
}
