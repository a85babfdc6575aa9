/* outdir.c: a build's output, written aside and swapped in. */
#include "outdir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

static const char marker_text[] =
	"This folder was written by logdown, which replaces it on every build.\n";

/* The canonical form of path, which may not exist yet: its deepest
 * existing ancestor resolved, the rest appended. */
static char *real_or_planned(const char *path)
{
	char *r = path_real(path);
	if (r)
		return r;
	char *parent = path_dirname(path);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *rp = strcmp(parent, path) == 0 ? NULL : real_or_planned(parent);
	free(parent);
	if (!rp)
		return NULL;
	char *out = path_join(rp, base);
	free(rp);
	return out;
}

static bool dir_is_empty(const char *path)
{
	size_t n;
	char **names = dir_list(path, &n);
	strv_free(names);
	return names && n == 0;
}

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

static bool refuse(struct diag *d, const char *out, const char *why)
{
	diag_error(d, loc_line(NULL, 0), "refusing to write the site to '%s': %s", out, why);
	return false;
}

int outdir_begin(struct outdir *o, const char *root, const char *out, struct diag *d)
{
	memset(o, 0, sizeof *o);
	char *rroot = path_real(root);
	char *rout = real_or_planned(out);
	bool ok = false;
	int rc = EXIT_USAGE;
	if (!rroot || !rout) {
		diag_error(d, loc_line(NULL, 0), "cannot resolve '%s': %s", rroot ? out : root,
			   strerror(errno));
		rc = EXIT_IO;
		goto out;
	}
	char *out_content = path_join(rout, "content");
	const char *source = inside_sources(rroot, rout);
	if (strcmp(rout, rroot) == 0)
		refuse(d, out, "it is the project root");
	else if (path_under(rroot, rout))
		refuse(d, out, "it holds the project");
	else if (source) {
		char *why = xasprintf("it lies inside %s/, among the sources", source);
		refuse(d, out, why);
		free(why);
	} else if (is_dir(out_content))
		refuse(d, out, "it holds a content/ folder of sources");
	else if (is_dir(out)) {
		char *marker = path_join(out, OUTDIR_MARKER);
		if (is_file(marker) || dir_is_empty(out))
			ok = true;
		else
			refuse(d, out,
			       "logdown did not create it (no " OUTDIR_MARKER
			       " marker inside); remove it or choose another folder with -o");
		free(marker);
	} else if (path_exists(out)) {
		refuse(d, out, "it exists and is not a folder");
	} else {
		ok = true;
	}
	free(out_content);
	if (!ok)
		goto out;

	/* The staging folder is a hidden sibling, so that the final rename
	 * stays on one file system. */
	char *parent = path_dirname(rout);
	const char *base = strrchr(rout, '/') + 1;
	o->final = xstrdup(out);
	o->staging = xasprintf("%s/.%s.tmp-%ld", parent, base, (long)getpid());
	free(parent);
	remove_tree(o->staging);
	char *marker = path_join(o->staging, OUTDIR_MARKER);
	ok = mkdir_p(o->staging) && file_write(marker, marker_text, sizeof marker_text - 1);
	rc = ok ? EXIT_OK : EXIT_IO;
	if (!ok) {
		diag_error(d, loc_line(NULL, 0), "%s: cannot create: %s", o->staging, strerror(errno));
		remove_tree(o->staging);
		free(o->staging);
		free(o->final);
		memset(o, 0, sizeof *o);
	}
	free(marker);
out:
	free(rroot);
	free(rout);
	return rc;
}

bool outdir_write(struct outdir *o, const char *rel, const char *data, size_t len,
		  struct diag *d)
{
	char *path = path_join(o->staging, rel);
	char *dir = path_dirname(path);
	bool ok = mkdir_p(dir) && file_write(path, data, len);
	if (!ok)
		diag_error(d, loc_line(NULL, 0), "%s/%s: cannot write: %s", o->final, rel,
			   strerror(errno));
	free(dir);
	free(path);
	return ok;
}

bool outdir_commit(struct outdir *o, struct diag *d)
{
	char *old = NULL;
	if (path_exists(o->final)) {
		old = xasprintf("%s.old", o->staging);
		if (rename(o->final, old) != 0) {
			diag_error(d, loc_line(NULL, 0), "%s: cannot move aside: %s", o->final,
				   strerror(errno));
			free(old);
			return false;
		}
	}
	if (rename(o->staging, o->final) != 0) {
		int e = errno;
		if (old && rename(old, o->final) != 0)
			diag_error(d, loc_line(NULL, 0), "the previous site is kept in %s", old);
		diag_error(d, loc_line(NULL, 0), "%s: cannot replace: %s", o->final, strerror(e));
		free(old);
		return false;
	}
	free(o->staging);
	o->staging = NULL;
	if (old && !remove_tree(old))
		diag_warning(d, loc_line(NULL, 0), "%s: cannot remove the previous site: %s", old,
			     strerror(errno));
	free(old);
	return true;
}

void outdir_end(struct outdir *o)
{
	if (o->staging)
		remove_tree(o->staging);
	free(o->staging);
	free(o->final);
	memset(o, 0, sizeof *o);
}
