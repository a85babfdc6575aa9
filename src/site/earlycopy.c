/* earlycopy.c: a big log's raw copy into the site, started on a thread
 * of its own as soon as the report's key names the file.
 *
 * A report's log pages and raw copies are written last
 * (provenance_write()), after its values and charts.  Over a 1 GB log
 * the copy (a kernel copy where the file system has no reflink: 0.4 to
 * 0.65 s) then ran alone on the report's thread, the last thing of the
 * build, while the second core was idle.  Now each result file of a
 * report of 16 MiB or more is copied to a hidden file in the staging
 * folder on a thread: from the moment report_key() names it, before
 * its content hash is taken (the hash reads the file on one thread for
 * a quarter of a second while the other core had nothing to do), beside
 * the parse, the values and the charts; or, when the report has no key
 * (no cache), as the report begins to render.  When provenance_write()
 * comes to copy it, the copy
 * made early is renamed into its place (earlycopy_take()) if it is of
 * the very file that would be copied now: the same device and inode,
 * the same size, modify and change times before the early copy, after
 * it and now.  Otherwise (the file changed or was replaced since) it is
 * dropped and the file copied as before.  At most two a report
 * (EARLY_MAX); the others are copied when their pages are written.
 *
 * Only for a report the previous output does not hold (a first build,
 * a new report): where it does, the keeper may leave the previous copy
 * in place or append to it (keepcopy.c), and an early copy would be a
 * gigabyte written for nothing.  Not for a file changed less than 2 s
 * before the copy starts (the cache's "racy" window): a write in the
 * same clock tick might leave its times unmoved, so an unchanged
 * signature would not show it.  Copies made early and never taken (a
 * run the report does not use) are removed when the report ends
 * (earlycopy_end()), before the output is committed. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "data/run.h"
#include "parse/runs.h"
#include "site_int.h"

/* Files under this are copied when their page is written, as before: a
 * thread costs more than their copy. */
#define EARLY_MIN ((off_t)16 << 20)
/* At most this many a report, each on a thread (a glob of a hundred
 * big logs would otherwise start a hundred copies at once); the others
 * are copied when their pages are written. */
#define EARLY_MAX 2
/* The cache's racy window (data/cache.h, struct cache_stamp). */
#define RACY_SECONDS 2

struct early {
	pthread_t thread;
	int fd;
	char *tmp;           /* its copy: a hidden file in the staging folder */
	struct stat before;  /* the file's signature before the copy */
	struct stat after;   /* and after it */
	bool ok;             /* copied, the signature unmoved */
	bool taken;          /* renamed into place */
};

static atomic_uint early_seq;

static void *copy_main(void *arg)
{
	struct early *e = arg;
	e->ok = file_copy_fd(e->fd, e->tmp) && fstat(e->fd, &e->after) == 0 &&
		stat_unchanged(&e->before, &e->after);
	return NULL;
}

/* Starts the early copy of the file at path, when it is worth one. */
static void start_one(struct earlycopy *ec, struct build *b, const char *path)
{
	if (ec->n == EARLY_MAX)
		return;
	char *real = path_resolve(path);
	if (!real)
		return;
	struct stat st;
	int fd = open_confined(real, b->root_real, &st);
	free(real);
	if (fd < 0)
		return;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	bool fresh = st.st_ctim.tv_sec > now.tv_sec - RACY_SECONDS ||
		     st.st_mtim.tv_sec > now.tv_sec - RACY_SECONDS;
	for (size_t i = 0; i < ec->n && !fresh; i++)
		fresh = ec->v[i].before.st_dev == st.st_dev && ec->v[i].before.st_ino == st.st_ino;
	if (st.st_size < EARLY_MIN || fresh) {
		close(fd);
		return;
	}
	if (ec->n == ec->cap) {
		ec->cap = ec->cap ? 2 * ec->cap : 4;
		ec->v = xrealloc(ec->v, ec->cap * sizeof *ec->v);
	}
	struct early *e = &ec->v[ec->n];
	memset(e, 0, sizeof *e);
	e->fd = fd;
	e->before = st;
	char name[64];
	snprintf(name, sizeof name, ".logdown-early-%u", atomic_fetch_add(&early_seq, 1));
	e->tmp = path_join(b->out.staging, name);
	if (pthread_create(&e->thread, NULL, copy_main, e) != 0) {
		close(fd);
		free(e->tmp);
		return;
	}
	ec->n++;
}

void earlycopy_begin(struct earlycopy *ec, struct build *b, const struct report *r)
{
	memset(ec, 0, sizeof *ec);
	ec->begun = true;
	if (!b->writing)
		return;
	/* the previous output holds the report: its copies are the
	 * keeper's to keep or append to */
	struct stat st;
	ec->on = b->prev_fd < 0 || fstatat(b->prev_fd, r->slug, &st, AT_SYMLINK_NOFOLLOW) != 0;
}

void earlycopy_file(struct earlycopy *ec, struct build *b, const char *path)
{
	if (ec->on)
		start_one(ec, b, path);
}

void earlycopy_start(struct earlycopy *ec, struct build *b, const struct report *r)
{
	if (!ec->begun)
		earlycopy_begin(ec, b, r);
	for (size_t i = 0; i < r->runs.count; i++) {
		const struct runset *s = &r->runs.sets[i];
		if (s->whole)
			earlycopy_file(ec, b, run_file(s->whole));
		else
			for (size_t k = 0; k < s->count; k++)
				earlycopy_file(ec, b, run_file(s->runs[k]));
	}
}

/* Waits for e's copy. */
static void join(struct early *e)
{
	if (e->fd < 0)
		return;
	pthread_join(e->thread, NULL);
	close(e->fd);
	e->fd = -1;
}

bool earlycopy_take(struct earlycopy *ec, struct build *b, const char *rel, int fd)
{
	struct stat now;
	if (!ec->n || fstat(fd, &now) != 0)
		return false;
	for (size_t i = 0; i < ec->n; i++) {
		struct early *e = &ec->v[i];
		if (e->taken || e->before.st_dev != now.st_dev || e->before.st_ino != now.st_ino)
			continue;
		join(e);
		if (!e->ok || !stat_unchanged(&e->before, &now))
			return false;
		e->taken = outdir_move_in(&b->out, rel, e->tmp);
		return e->taken;
	}
	return false;
}

void earlycopy_end(struct earlycopy *ec)
{
	for (size_t i = 0; i < ec->n; i++) {
		struct early *e = &ec->v[i];
		join(e);
		if (!e->taken)
			unlink(e->tmp);
		free(e->tmp);
	}
	free(ec->v);
	memset(ec, 0, sizeof *ec);
}
