/* seal.h: what makes a build cache file this user's own.
 *
 * A project may come from someone else (an archive, a shared folder, a
 * CI cache), and so may its .logdown-cache.  Every cache file is sealed
 * with a key that never lives in a project: 32 random bytes in the
 * user's cache folder ($XDG_CACHE_HOME/logdown/key, else
 * ~/.cache/logdown/key), made on first use, readable by the user only.
 * A file whose seal does not match was not written by this user on
 * this machine, or was changed since: it is not used.
 *
 * The seal is HMAC-SHA256 (nettle) under the key, over a file's header
 * and the SHA-256 digest of its body:
 *
 *     seal = HMAC-SHA256(key, header || SHA-256(body))
 *
 * so that a format whose body is read where it lies (mapped) can digest
 * it apart from its header.  docs/internals.md, "The build cache", says
 * why this construction and this library. */
#ifndef LOGDOWN_SEAL_H
#define LOGDOWN_SEAL_H

#include <nettle/sha2.h>
#include <stdbool.h>
#include <stddef.h>

#define SEAL_KEY_BYTES 32
/* A key's public name, written in every cache file's header, which
 * tells "another user's cache" from "a damaged one" before the seal is
 * checked (it is HMAC-SHA256(key, "logdown cache key id"), cut: it
 * says nothing of the key). */
#define SEAL_ID_BYTES 8
#define SEAL_BYTES 32

struct seal_key {
	unsigned char key[SEAL_KEY_BYTES];
	unsigned char id[SEAL_ID_BYTES];
};

/* Reads the user's key, making it (and its folder, 0700) on first use
 * from getrandom(2).  A key that is a symbolic link, is not a regular
 * file of this user's, can be read or written by others, or is not 32
 * bytes, is refused, and so is a folder that is not this user's or that
 * others may write to.  True with *k filled; false with *where set to
 * the path at fault (caller frees) and *why to what is wrong with it, a
 * static phrase to follow "the key is": "a symbolic link", "readable or
 * writable by others", "in a folder others may write to", ...  Where no
 * key can be kept at all (its folder cannot be made for want of
 * permission: no writable home), false with *why NULL: no cache, and
 * nothing worth a warning on every build. */
bool seal_key_load(struct seal_key *k, char **where, const char **why);

/* Where seal_key_load() looks: $XDG_CACHE_HOME/logdown/key when that is
 * an absolute path, else $HOME/.cache/logdown/key (HOME from the user
 * database when unset).  NULL when there is no home.  Caller frees. */
char *seal_key_path(void);

/* The key k made of raw bytes (for tests and the fuzz harness). */
void seal_key_from(struct seal_key *k, const unsigned char key[SEAL_KEY_BYTES]);

/* The seal of a file whose header is head[0..hlen) and body
 * body[0..blen), under k, into out. */
void seal_make(const struct seal_key *k, const void *head, size_t hlen, const void *body,
	       size_t blen, unsigned char out[SEAL_BYTES]);

/* The same seal for a body taken in pieces (a file too big to hold,
 * read in windows): init, add each piece in order, then seal with the
 * header, which may be filled only after the body was added. */
struct seal_body {
	struct sha256_ctx sha;
};
void seal_body_init(struct seal_body *b);
void seal_body_add(struct seal_body *b, const void *p, size_t n);
void seal_body_seal(struct seal_body *b, const struct seal_key *k, const void *head,
		    size_t hlen, unsigned char out[SEAL_BYTES]);

/* Are two seals the same?  Compares in constant time. */
bool seal_equal(const unsigned char a[SEAL_BYTES], const unsigned char b[SEAL_BYTES]);

/* Does seal match head and body under k?  Compares in constant time. */
bool seal_check(const struct seal_key *k, const void *head, size_t hlen, const void *body,
		size_t blen, const unsigned char seal[SEAL_BYTES]);

#endif
