/* snapshot.c: the versions of a set of files, compared. */
#include "cmd/snapshot.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fsutil.h"
#include "base/util.h"

/* Deeper than any project: a cut-off, not a limit anyone meets. */
#define MAX_DEPTH 32

static void put(struct snapshot *s, const char *path, const long long v[6])
{
	s->f = xrealloc(s->f, (s->n + 1) * sizeof *s->f);
	struct snapshot_file *e = &s->f[s->n++];
	e->path = xstrdup(path);
	memcpy(e->v, v, sizeof e->v);
}

void snapshot_add(struct snapshot *s, const char *path)
{
	struct stat st;
	long long v[6] = {-1, 0, 0, 0, 0, 0};
	if (stat(path, &st) == 0) {
		long long now[] = {(long long)st.st_size,	 (long long)st.st_mtim.tv_sec,
				   (long long)st.st_mtim.tv_nsec, (long long)st.st_ino,
				   (long long)st.st_ctim.tv_sec,  (long long)st.st_ctim.tv_nsec};
		memcpy(v, now, sizeof v);
	}
	put(s, path, v);
}

static void tree(struct snapshot *s, const char *dir, int depth)
{
	size_t n;
	char **names = dir_list(dir, &n);
	if (!names)
		return;
	for (size_t i = 0; i < n; i++) {
		char *p = path_join(dir, names[i]);
		struct stat st;
		if (depth < MAX_DEPTH && lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			tree(s, p, depth + 1);
		else
			snapshot_add(s, p);
		free(p);
	}
	strv_free(names);
}

void snapshot_tree(struct snapshot *s, const char *dir)
{
	tree(s, dir, 0);
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct snapshot_file *)a)->path,
		      ((const struct snapshot_file *)b)->path);
}

void snapshot_sort(struct snapshot *s)
{
	if (s->n > 1)
		qsort(s->f, s->n, sizeof *s->f, cmp_path);
	/* a file read by two reports is there once */
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (k > 0 && strcmp(s->f[k - 1].path, s->f[i].path) == 0)
			free(s->f[i].path);
		else
			s->f[k++] = s->f[i];
	}
	s->n = k;
}

size_t snapshot_diff(const struct snapshot *a, const struct snapshot *b,
		     void (*fn)(void *ctx, const char *path, bool existed, bool exists),
		     void *ctx)
{
	size_t i = 0, j = 0, n = 0;
	while (i < a->n || j < b->n) {
		int c = i >= a->n ? 1 : j >= b->n ? -1 : strcmp(a->f[i].path, b->f[j].path);
		if (c < 0) {
			n++;
			if (fn)
				fn(ctx, a->f[i].path, a->f[i].v[0] >= 0, false);
			i++;
		} else if (c > 0) {
			n++;
			if (fn)
				fn(ctx, b->f[j].path, false, b->f[j].v[0] >= 0);
			j++;
		} else {
			if (memcmp(a->f[i].v, b->f[j].v, sizeof a->f[i].v) != 0) {
				n++;
				if (fn)
					fn(ctx, a->f[i].path, a->f[i].v[0] >= 0, b->f[j].v[0] >= 0);
			}
			i++;
			j++;
		}
	}
	return n;
}

void snapshot_as_of(struct snapshot *after, const struct snapshot *before, struct timespec start)
{
	static const long long changed[6] = {-2, -2, -2, -2, -2, -2};
	size_t i = 0;
	for (size_t j = 0; j < after->n; j++) {
		struct snapshot_file *e = &after->f[j];
		int c = 1;
		while (i < before->n && (c = strcmp(before->f[i].path, e->path)) < 0)
			i++;
		if (i < before->n && c == 0) {
			memcpy(e->v, before->f[i].v, sizeof e->v);
		} else if (e->v[0] >= 0 && (e->v[4] > (long long)start.tv_sec ||
					    (e->v[4] == (long long)start.tv_sec &&
					     e->v[5] >= (long long)start.tv_nsec))) {
			memcpy(e->v, changed, sizeof e->v);
		}
	}
}

struct timespec snapshot_clock(void)
{
	/* File times come from the kernel's coarse clock (or a finer one,
	 * never behind it): a file changed after this reading has a change
	 * time at or after it. */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	return ts;
}

void snapshot_free(struct snapshot *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->f[i].path);
	free(s->f);
	s->f = NULL;
	s->n = 0;
}
