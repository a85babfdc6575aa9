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
 * owner can set back, and it is copied again. */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
static void note_copy(struct build *b, const char *rel, const struct cache_key *content)
{
	pthread_mutex_lock(&keep_mu);
	if (b->ncopies == b->copies_cap) {
		b->copies_cap = b->copies_cap ? 2 * b->copies_cap : 16;
		b->copies = xrealloc(b->copies, b->copies_cap * sizeof *b->copies);
	}
	b->copies[b->ncopies].rel = xstrdup(rel);
	b->copies[b->ncopies].content = *content;
	b->ncopies++;
	pthread_mutex_unlock(&keep_mu);
}

bool keepcopy_keep(void *ctx, const char *rel, int fd, const char *real)
{
	struct build *b = ctx;
	struct cache_key content;
	/* the hash the parse took, by the file's stat signature: no read
	 * (a file changed a moment ago is not remembered: copied) */
	if (!b->disk || !b->reports_keyed || !b->can_move ||
	    !cache_fd_hash_known(b->disk, real, fd, &content))
		return false;
	note_copy(b, rel, &content);
	struct stat st;
	if (b->prev_fd < 0 || !stat_previous(b->prev_fd, rel, &st) ||
	    !cache_output_known(b->disk, b->out.final, rel, &st, &content))
		return false;
	pthread_mutex_lock(&keep_mu);
	outdir_keep(&b->out, rel);
	pthread_mutex_unlock(&keep_mu);
	return true;
}

void keepcopy_commit(struct build *b)
{
	int out = open(b->out.final, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	for (size_t i = 0; out >= 0 && i < b->ncopies; i++) {
		struct stat st;
		if (stat_previous(out, b->copies[i].rel, &st))
			cache_output_note(b->disk, b->out.final, b->copies[i].rel, &st,
					  &b->copies[i].content);
	}
	if (out >= 0)
		close(out);
}

void keepcopy_free(struct build *b)
{
	for (size_t i = 0; i < b->ncopies; i++)
		free(b->copies[i].rel);
	free(b->copies);
	b->copies = NULL;
	b->ncopies = b->copies_cap = 0;
}
