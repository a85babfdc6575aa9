/* seal.c: the user's cache key and the seal of a cache file (seal.h).
 *
 * The key's folder is opened without following a link, and the key is
 * reached relative to it: a link planted as either is refused, never
 * read through.  A new key is written under a temporary name (O_EXCL)
 * and linked into place, so two builds starting at once end with the
 * same key, never half of one. */
#define _GNU_SOURCE
#include "data/seal.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"

static const char id_label[] = "logdown cache key id";

void seal_key_from(struct seal_key *k, const unsigned char key[SEAL_KEY_BYTES])
{
	memcpy(k->key, key, SEAL_KEY_BYTES);
	struct hmac_sha256_ctx ctx;
	unsigned char d[SHA256_DIGEST_SIZE];
	hmac_sha256_set_key(&ctx, SEAL_KEY_BYTES, k->key);
	hmac_sha256_update(&ctx, sizeof id_label - 1, (const uint8_t *)id_label);
	hmac_sha256_digest(&ctx, sizeof d, d);
	memcpy(k->id, d, SEAL_ID_BYTES);
}

void seal_body_init(struct seal_body *b)
{
	sha256_init(&b->sha);
}

void seal_body_add(struct seal_body *b, const void *p, size_t n)
{
	sha256_update(&b->sha, n, p);
}

void seal_body_seal(struct seal_body *b, const struct seal_key *k, const void *head,
		    size_t hlen, unsigned char out[SEAL_BYTES])
{
	unsigned char digest[SHA256_DIGEST_SIZE];
	sha256_digest(&b->sha, sizeof digest, digest);
	struct hmac_sha256_ctx ctx;
	hmac_sha256_set_key(&ctx, SEAL_KEY_BYTES, k->key);
	hmac_sha256_update(&ctx, hlen, head);
	hmac_sha256_update(&ctx, sizeof digest, digest);
	hmac_sha256_digest(&ctx, SEAL_BYTES, out);
}

bool seal_equal(const unsigned char a[SEAL_BYTES], const unsigned char b[SEAL_BYTES])
{
	return memeql_sec(a, b, SEAL_BYTES) != 0;
}

void seal_make(const struct seal_key *k, const void *head, size_t hlen, const void *body,
	       size_t blen, unsigned char out[SEAL_BYTES])
{
	struct seal_body b;
	seal_body_init(&b);
	seal_body_add(&b, body, blen);
	seal_body_seal(&b, k, head, hlen, out);
}

bool seal_check(const struct seal_key *k, const void *head, size_t hlen, const void *body,
		size_t blen, const unsigned char seal[SEAL_BYTES])
{
	unsigned char want[SEAL_BYTES];
	seal_make(k, head, hlen, body, blen, want);
	return seal_equal(want, seal);
}

char *seal_key_path(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && xdg[0] == '/') /* the XDG spec: a relative one is ignored */
		return path_join(xdg, "logdown/key");
	const char *home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(geteuid());
		home = pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
	}
	return home ? xasprintf("%s/.cache/logdown/key", home) : NULL;
}

/* Writes a new key into the folder open at dfd, unless another process
 * does first.  False with errno. */
static bool make_key(int dfd)
{
	unsigned char key[SEAL_KEY_BYTES];
	size_t got = 0;
	while (got < sizeof key) {
		ssize_t n = getrandom(key + got, sizeof key - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		got += (size_t)n;
	}
	char tmp[64];
	snprintf(tmp, sizeof tmp, "key.tmp-%ld", (long)getpid());
	unlinkat(dfd, tmp, 0); /* a leftover of a process of this pid killed midway */
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	bool ok = write(fd, key, sizeof key) == (ssize_t)sizeof key && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	/* linkat() never replaces: a key another build made first stays */
	if (ok && linkat(dfd, tmp, dfd, "key", 0) != 0 && errno != EEXIST)
		ok = false;
	int e = errno;
	unlinkat(dfd, tmp, 0);
	memset(key, 0, sizeof key);
	errno = e;
	return ok;
}

/* Is st, the key or its folder, one only this user can change (and,
 * for the key, read)? */
static const char *mode_problem(const struct stat *st, bool is_key)
{
	if (st->st_uid != geteuid())
		return is_key ? "not yours (another user owns it)"
			      : "in a folder that is not yours (another user owns it)";
	if (is_key && (st->st_mode & 077))
		return "readable or writable by others";
	if (!is_key && (st->st_mode & 022))
		return "in a folder others may write to";
	return NULL;
}

bool seal_key_load(struct seal_key *k, char **where, const char **why)
{
	*where = NULL;
	*why = NULL;
	char *path = seal_key_path();
	if (!path) {
		*why = "nowhere to keep it (neither XDG_CACHE_HOME nor a home folder is known)";
		*where = xstrdup("logdown");
		return false;
	}
	char *dir = path_dirname(path);
	char *parent = path_dirname(dir);
	int dfd = -1, fd = -1;
	bool ok = false;
	/* The folders above are the user's to arrange (a cache on another
	 * disk through a link is theirs); logdown's own folder is 0700. */
	if (!mkdir_p(parent) || (mkdir(dir, 0700) != 0 && errno != EEXIST)) {
		/* No home to keep a key in (a sandbox, a user without one):
		 * no cache, and nothing to warn of on every build. */
		if (errno == EACCES || errno == EPERM || errno == EROFS)
			goto out;
		*why = "in a folder that cannot be made";
		*where = xstrdup(parent);
		goto out;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (dfd < 0) {
		*why = errno == ELOOP || errno == ENOTDIR
			       ? "in a symbolic link or a file where its folder goes"
			       : "in a folder that cannot be read";
		*where = xstrdup(dir);
		goto out;
	}
	if (fstat(dfd, &st) != 0 || (*why = mode_problem(&st, false))) {
		if (!*why)
			*why = "in a folder that cannot be read";
		*where = xstrdup(dir);
		goto out;
	}
	for (int attempt = 0; attempt < 2 && fd < 0; attempt++) {
		fd = openat(dfd, "key", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && attempt == 0 && make_key(dfd))
			continue;
		if (fd < 0)
			break;
	}
	*where = xstrdup(path);
	if (fd < 0) {
		*why = errno == ELOOP	 ? "a symbolic link"
		       : errno == ENOENT ? "missing and cannot be made"
					 : "unreadable";
		goto out;
	}
	if (fstat(fd, &st) != 0) {
		*why = "unreadable";
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = "not a file";
		goto out;
	}
	if ((*why = mode_problem(&st, true)))
		goto out;
	unsigned char key[SEAL_KEY_BYTES + 1];
	ssize_t n = read(fd, key, sizeof key);
	if (n != SEAL_KEY_BYTES) {
		*why = "not a key logdown made (one is 32 bytes)";
		goto out;
	}
	seal_key_from(k, key);
	memset(key, 0, sizeof key);
	ok = true;
	free(*where);
	*where = NULL;
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	free(parent);
	free(dir);
	free(path);
	return ok;
}
