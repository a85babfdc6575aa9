/* wake.c: serve's poll woken by inotify (wake.h). */
#define _DEFAULT_SOURCE /* DT_DIR */
#include "cmd/wake.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "cmd/snapshot.h"

/* What a change in a watched folder is: written, made, removed, renamed
 * in or out, its times or mode changed. */
#define WAKE_EVENTS                                                                            \
	(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |    \
	 IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)

struct wake {
	int fd;      /* the inotify instance */
	int quit[2]; /* a pipe: its end of file stops the thread */
	void (*fn)(void *ctx);
	void *ctx;
	pthread_t thread;
	/* the folder each watch is on, by watch descriptor: a folder made
	 * in one is watched in turn */
	pthread_mutex_t lock;
	char **dirs;
	size_t ndirs;
};

/* Watches dir (under w->lock). */
static void add_dir(struct wake *w, const char *dir)
{
	int wd = inotify_add_watch(w->fd, dir, WAKE_EVENTS | IN_ONLYDIR);
	if (wd < 0)
		return;
	if ((size_t)wd >= w->ndirs) {
		size_t n = (size_t)wd + 64;
		w->dirs = xrealloc(w->dirs, n * sizeof *w->dirs);
		memset(w->dirs + w->ndirs, 0, (n - w->ndirs) * sizeof *w->dirs);
		w->ndirs = n;
	}
	if (!w->dirs[wd])
		w->dirs[wd] = xstrdup(dir);
}

/* Watches dir and every folder below it (a folder made with folders in
 * it before its watch came), without following links; depth bounds a
 * planted chain. */
static void add_tree(struct wake *w, const char *dir, int depth)
{
	add_dir(w, dir);
	DIR *d = depth < 32 ? opendir(dir) : NULL;
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0)
			continue;
		char *sub = path_join(dir, e->d_name);
		add_tree(w, sub, depth + 1);
		free(sub);
	}
	closedir(d);
}

/* Watches each folder the batch of events in buf made or moved in. */
static void follow_new_dirs(struct wake *w, const char *buf, size_t len)
{
	for (size_t at = 0; at + sizeof(struct inotify_event) <= len;) {
		const struct inotify_event *ev = (const void *)(buf + at);
		at += sizeof *ev + ev->len;
		if (!(ev->mask & IN_ISDIR) || !(ev->mask & (IN_CREATE | IN_MOVED_TO)) || !ev->len)
			continue;
		pthread_mutex_lock(&w->lock);
		if (ev->wd >= 0 && (size_t)ev->wd < w->ndirs && w->dirs[ev->wd]) {
			char *sub = path_join(w->dirs[ev->wd], ev->name);
			add_tree(w, sub, 0);
			free(sub);
		}
		pthread_mutex_unlock(&w->lock);
	}
}

static void *wake_loop(void *arg)
{
	struct wake *w = arg;
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		struct pollfd p[2] = {{w->fd, POLLIN, 0}, {w->quit[0], POLLIN, 0}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		if (p[1].revents)
			return NULL;
		if (!(p[0].revents & POLLIN))
			continue;
		/* every event queued now is one batch: one call */
		ssize_t n = read(w->fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return NULL;
		follow_new_dirs(w, buf, (size_t)n);
		w->fn(w->ctx);
	}
}

struct wake *wake_start(void (*fn)(void *ctx), void *ctx)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct wake *w = xcalloc(1, sizeof *w);
	w->fd = fd;
	w->fn = fn;
	w->ctx = ctx;
	pthread_mutex_init(&w->lock, NULL);
	if (pipe(w->quit) != 0) {
		close(fd);
		free(w);
		return NULL;
	}
	if (pthread_create(&w->thread, NULL, wake_loop, w) != 0) {
		close(w->quit[0]);
		close(w->quit[1]);
		close(fd);
		free(w);
		return NULL;
	}
	return w;
}

/* Is dir the folder prev or one above it? */
static bool holds(const char *dir, const char *prev)
{
	size_t n = strlen(dir);
	return prev && strncmp(prev, dir, n) == 0 && (prev[n] == '\0' || prev[n] == '/');
}

void wake_watch(struct wake *w, const struct snapshot *s, const char *root)
{
	if (!w)
		return;
	size_t nroot = strlen(root);
	char *last = NULL; /* the folder of the path before: paths come sorted */
	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; i < s->n; i++) {
		char *dir = path_dirname(s->f[i].path);
		if (holds(dir, last)) {
			free(dir);
			continue;
		}
		char *leaf = xstrdup(dir);
		/* the folder and those above it, up to the project, or up to
		 * one the folder before was below (watched a moment ago) */
		for (;;) {
			/* a watch on a folder watched already is the same watch */
			add_dir(w, dir);
			if (strlen(dir) <= nroot || strncmp(dir, root, nroot) != 0) {
				free(dir);
				break;
			}
			char *up = path_dirname(dir);
			free(dir);
			dir = up;
			if (holds(dir, last)) {
				free(dir);
				break;
			}
		}
		free(last);
		last = leaf;
	}
	pthread_mutex_unlock(&w->lock);
	free(last);
}

void wake_stop(struct wake *w)
{
	if (!w)
		return;
	close(w->quit[1]);
	pthread_join(w->thread, NULL);
	close(w->quit[0]);
	close(w->fd);
	for (size_t i = 0; i < w->ndirs; i++)
		free(w->dirs[i]);
	free(w->dirs);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
