/* keepcopy.c: the raw copy of a result file in the output, left where
 * it is when the previous build put it there and nothing touched it.
 *
 * A report renders again after an edit of its prose; its logs did not
 * change, but their raw copies (<slug>/logs/<name>) were written again
 * each time: a 1 GB log cost a 1 GB copy per save.  Now, after a build
 * commits, each copy in the output is remembered in the sealed files
 * table (cache_output_note()): its inode, size, modify and change times,
 * and the content hash of the file it copies.  The next build asks the
 * keeper before copying (provenance_keeper): when the file it would copy
 * has that content hash, and the previous output holds, at the same
 * place, reached through real folders, a regular file with one name
 * whose inode, size and times are the remembered ones, that copy stays
 * where it is (outdir_keep(): the merge leaves it in place, untouched).
 * Nothing else of the previous output is trusted: any write, rename or
 * link onto the copy moves its change time, which only the clock's
 * owner can set back, and it is copied again.
 *
 * A log that only grew (a running job's) is not copied again either:
 * when the build's one read of it found its first bytes to be the
 * content the previous copy holds (cache_fd_grew()), and that copy is
 * the one remembered, untouched, the new bytes are appended to it in
 * place once the output is committed (not before: a commit killed and
 * undone leaves the previous site exactly as it was), read and hashed
 * on the way from that read's state, and appended only when they end in
 * the log's hash (append_copy()).  A log changed a moment ago ("racy",
 * read again by this build) whose read found the content the previous
 * copy holds keeps that copy as well: it holds the bytes the build read
 * (a prose edit saved right after an append). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "site_int.h"

/* The previous output's entry rel, reached from its folder through real
 * folders only (O_NOFOLLOW), into *st without following a last link. */
static bool stat_previous(int out_fd, const char *rel, struct stat *st)
{
	const char *slash = strrchr(rel, '/');
	int dfd = out_fd;
	if (slash) {
		char *dir = xstrndup(rel, (size_t)(slash - rel));
		dfd = open_below(out_fd, dir);
		free(dir);
	}
	bool ok = dfd >= 0 && fstatat(dfd, slash ? slash + 1 : rel, st, AT_SYMLINK_NOFOLLOW) == 0;
	if (dfd >= 0 && dfd != out_fd)
		close(dfd);
	return ok;
}

static pthread_mutex_t keep_mu = PTHREAD_MUTEX_INITIALIZER;

/* This build's copies: rel and the content hash, for keepcopy_commit(). */
static void note_copy(struct build *b, const char *rel, const struct cache_key *content,
		      const char *racy)
{
	pthread_mutex_lock(&keep_mu);
	if (b->ncopies == b->copies_cap) {
		b->copies_cap = b->copies_cap ? 2 * b->copies_cap : 16;
		b->copies = xrealloc(b->copies, b->copies_cap * sizeof *b->copies);
	}
	memset(&b->copies[b->ncopies], 0, sizeof b->copies[b->ncopies]);
	b->copies[b->ncopies].rel = xstrdup(rel);
	b->copies[b->ncopies].content = *content;
	b->copies[b->ncopies].racy = racy ? xstrdup(racy) : NULL;
	b->ncopies++;
	pthread_mutex_unlock(&keep_mu);
}

/* The most new bytes kept in memory for a copy to append them to:
 * past it the log is copied whole. */
#define TAIL_MAX ((size_t)32 << 20)
/* A log under this is copied whole: its copy costs under a millisecond,
 * and a kept file makes its report's folder merge file by file, whose
 * undo after a killed commit moves its pages' change times (the next
 * build then renders the page again rather than reuse it). */
#define APPEND_MIN ((uint64_t)1 << 20)

/* The bytes of the file open at fd from `at` on, read into *tail
 * (*len), going on from the build's read's hash state there (h, ended
 * here): true when they end in the file's hash, content. */
static bool read_tail(int fd, uint64_t at, uint64_t size, struct cache_hasher *h,
		      const struct cache_key *content, char **tail, size_t *len)
{
	size_t want = (size_t)(size - at);
	char *buf = xmalloc(want + 1);
	size_t got = 0;
	bool ok = true;
	/* one byte more than the size the read saw: a log grown again
	 * since is not this content */
	while (ok && got <= want) {
		ssize_t n = pread(fd, buf + got, want + 1 - got, (off_t)(at + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ok = n == 0;
			break;
		}
		got += (size_t)n;
	}
	cache_hasher_plain_bytes(h, buf, got);
	struct cache_key end = cache_hasher_end(h);
	ok = ok && got == want && memcmp(end.b, content->b, sizeof end.b) == 0;
	if (!ok) {
		free(buf);
		return false;
	}
	*tail = buf;
	*len = got;
	return true;
}

static void appends_run(void *ctx);

/* The previous output's copy at rel, when it is the content the file
 * open at fd had before it grew (this build's read found the file's
 * first bytes to be that: cache_fd_grew()), untouched since it was
 * remembered: kept, its new bytes read now (checked against the
 * file's hash, *content) and appended once the output is committed
 * (appends_run()). */
static bool append_copy(struct build *b, const char *rel, int fd, const char *real,
			struct cache_key *content)
{
	uint64_t old_size;
	struct cache_key old_hash;
	struct stat st, now;
	if (b->prev_fd < 0 || !cache_fd_grew(b->disk, real, fd, &old_size, &old_hash, content) ||
	    fstat(fd, &now) != 0 || (uint64_t)now.st_size < APPEND_MIN ||
	    (uint64_t)now.st_size < old_size || (uint64_t)now.st_size - old_size > TAIL_MAX ||
	    !stat_previous(b->prev_fd, rel, &st) || (uint64_t)st.st_size != old_size ||
	    !cache_output_known(b->disk, b->out.final, rel, &st, &old_hash))
		return false;
	struct cache_hasher *h = cache_fd_hasher_at(b->disk, real, fd, old_size);
	char *tail;
	size_t len;
	if (!h || !read_tail(fd, old_size, (uint64_t)now.st_size, h, content, &tail, &len))
		return false;
	note_copy(b, rel, content, NULL);
	pthread_mutex_lock(&keep_mu);
	struct kept_copy *k = NULL;
	for (size_t i = b->ncopies; i-- > 0 && !k;)
		if (strcmp(b->copies[i].rel, rel) == 0)
			k = &b->copies[i];
	k->tail = tail;
	k->tail_len = len;
	k->at = old_size;
	k->was = st;
	b->out.committed = appends_run;
	b->out.committed_ctx = b;
	outdir_keep(&b->out, rel);
	pthread_mutex_unlock(&keep_mu);
	return true;
}

/* Once the output is committed (outdir_commit()'s hook, before anyone
 * lists it): each kept copy of a grown log gets its new bytes, when it
 * is still the file that was checked.  One that does not is not
 * remembered: the next build finds it short of the log and appends or
 * copies again. */
static void appends_run(void *ctx)
{
	struct build *b = ctx;
	int out = open(b->out.final, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	for (size_t i = 0; out >= 0 && i < b->ncopies; i++) {
		struct kept_copy *k = &b->copies[i];
		if (!k->tail)
			continue;
		const char *slash = strrchr(k->rel, '/');
		int dfd = out;
		if (slash) {
			char *dir = xstrndup(k->rel, (size_t)(slash - k->rel));
			dfd = open_below(out, dir);
			free(dir);
		}
		int fd = dfd < 0 ? -1
				 : openat(dfd, slash ? slash + 1 : k->rel,
					  O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (dfd >= 0 && dfd != out)
			close(dfd);
		struct stat now;
		const struct stat *was = &k->was;
		bool ok = fd >= 0 && fstat(fd, &now) == 0 && S_ISREG(now.st_mode) &&
			  now.st_nlink == 1 && stat_unchanged(&now, was);
		for (size_t put = 0; ok && put < k->tail_len;) {
			ssize_t w = pwrite(fd, k->tail + put, k->tail_len - put, (off_t)(k->at + put));
			if (w < 0 && errno == EINTR)
				continue;
			ok = w > 0;
			put += ok ? (size_t)w : 0;
		}
		if (fd >= 0 && close(fd) != 0)
			ok = false;
		k->appended = ok;
	}
	if (out >= 0)
		close(out);
}

bool keepcopy_keep(void *ctx, const char *rel, int fd, const char *real)
{
	struct build *b = ctx;
	struct cache_key content;
	if (!b->disk || !b->reports_keyed || !b->can_move)
		return false;
	/* the hash the parse took, by the file's stat signature: no read
	 * (a file changed a moment ago is not remembered: copied, unless it
	 * only grew) */
	bool known = cache_fd_hash_known(b->disk, real, fd, &content);
	/* A log changed a moment ago (racy: hashed again by this build)
	 * that holds what the previous copy holds: that copy, untouched,
	 * is the bytes this build read and rendered; kept (a prose edit
	 * saved right after an append).  A copy made now could hold later
	 * bytes than the read. */
	if (known || cache_fd_hash_read(b->disk, real, fd, &content)) {
		struct stat st;
		if (b->prev_fd >= 0 && stat_previous(b->prev_fd, rel, &st) &&
		    cache_output_known(b->disk, b->out.final, rel, &st, &content)) {
			note_copy(b, rel, &content, NULL);
			pthread_mutex_lock(&keep_mu);
			outdir_keep(&b->out, rel);
			pthread_mutex_unlock(&keep_mu);
			return true;
		}
	}
	if (append_copy(b, rel, fd, real, &content))
		return true;
	/* copied whole: a racy log's copy is remembered when the log is
	 * still, after the copy, what its read hashed */
	if (known)
		note_copy(b, rel, &content, NULL);
	else if (cache_fd_racy_still(b->disk, real, &content))
		note_copy(b, rel, &content, real);
	return false;
}

void keepcopy_commit(struct build *b)
{
	int out = open(b->out.final, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	for (size_t i = 0; out >= 0 && i < b->ncopies; i++) {
		struct stat st;
		struct cache_key now;
		if (b->copies[i].tail && !b->copies[i].appended)
			continue;
		if (b->copies[i].racy &&
		    (!cache_fd_racy_still(b->disk, b->copies[i].racy, &now) ||
		     memcmp(now.b, b->copies[i].content.b, sizeof now.b) != 0))
			continue;
		if (stat_previous(out, b->copies[i].rel, &st))
			cache_output_note(b->disk, b->out.final, b->copies[i].rel, &st,
					  &b->copies[i].content);
	}
	if (out >= 0)
		close(out);
}

void keepcopy_free(struct build *b)
{
	for (size_t i = 0; i < b->ncopies; i++) {
		free(b->copies[i].rel);
		free(b->copies[i].racy);
		free(b->copies[i].tail);
	}
	free(b->copies);
	b->copies = NULL;
	b->ncopies = b->copies_cap = 0;
}
