/* cache.c: the on-disk build cache (see cache.h for its layout).
 *
 * Every file is reached relative to the cache folder's descriptor,
 * opened without following a link (see docs/internals.md, "Links are
 * never followed").
 *
 * Encoding: little-endian fixed-width integers and length-prefixed
 * strings, read through a cursor that checks every length against the
 * bytes left; any inconsistency makes the whole file unusable.  A run
 * is kept in runstore.c's form instead, mapped rather than read. */
#define _GNU_SOURCE
#include "data/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
/* XXH3_state_t's fields: a hasher's state is saved (cache_hasher_save()) */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "base/fsutil.h"
#include "base/mapguard.h"
#include "base/util.h"
#include "base/version.h"
#include "data/runstore.h"
#include "data/seal.h"
#include "data/wire.h"

/* 2: a series cell keeps its own line; 3: sealed with the user's key,
 * runs in runstore.c's form; 5: a big file's row keeps its proof */
#define CACHE_FORMAT 5u
#define MAGIC "logdown-cache\n"
#define MAGIC_LEN (sizeof MAGIC - 1)
#define TAG_NAME "CACHEDIR.TAG"
#define TAG_TEXT                                                                               \
	"Signature: 8a477f597d28d172789f06886806bc55\n"                                        \
	"# This folder is logdown's build cache: `logdown clean` removes it.\n"

enum kind { KIND_FILES = 1, KIND_RUN = 2, KIND_REPORTS = 3, KIND_MEMO = 4, KIND_STATE = 5 };

const char *cache_version(void)
{
	const char *v = getenv("LOGDOWN_CACHE_VERSION");
	return v && *v ? v : LOGDOWN_VERSION;
}

/* --- keys --- */

struct cache_hasher {
	XXH3_state_t *st;
};

struct cache_hasher *cache_hasher_plain(void);

struct cache_hasher *cache_hasher_new(void)
{
	struct cache_hasher *h = cache_hasher_plain();
	uint32_t format = CACHE_FORMAT;
	cache_hasher_bytes(h, &format, sizeof format);
	cache_hasher_str(h, cache_version());
	return h;
}

struct cache_hasher *cache_hasher_plain(void)
{
	struct cache_hasher *h = xcalloc(1, sizeof *h);
	h->st = XXH3_createState();
	if (!h->st) {
		fprintf(stderr, "logdown: out of memory\n");
		abort();
	}
	XXH3_128bits_reset(h->st);
	return h;
}

void cache_hasher_plain_bytes(struct cache_hasher *h, const void *p, size_t n)
{
	XXH3_128bits_update(h->st, p, n);
}

void cache_hasher_bytes(struct cache_hasher *h, const void *p, size_t n)
{
	uint64_t len = n;
	XXH3_128bits_update(h->st, &len, sizeof len);
	XXH3_128bits_update(h->st, p, n);
}

void cache_hasher_str(struct cache_hasher *h, const char *s)
{
	s = s ? s : "";
	cache_hasher_bytes(h, s, strlen(s));
}

void cache_hasher_key(struct cache_hasher *h, const struct cache_key *k)
{
	cache_hasher_bytes(h, k->b, sizeof k->b);
}

static struct cache_key key_of(XXH128_hash_t v)
{
	struct cache_key k;
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, v);
	memcpy(k.b, c.digest, sizeof k.b);
	return k;
}

struct cache_key cache_hasher_end(struct cache_hasher *h)
{
	struct cache_key k = key_of(XXH3_128bits_digest(h->st));
	XXH3_freeState(h->st);
	free(h);
	return k;
}

struct cache_key cache_hasher_digest(const struct cache_hasher *h)
{
	return key_of(XXH3_128bits_digest(h->st));
}

void cache_hasher_save(const struct cache_hasher *h, struct buf *out)
{
	/* the library's version first: the state's layout is its own */
	uint32_t v = XXH_versionNumber();
	buf_put(out, (const char *)&v, sizeof v);
	/* what the state may never have written is written as zeros: the
	 * custom secret (unused without a seed); the buffer past what it
	 * holds, but for its last stripe (64 bytes), which a digest reads
	 * when the buffer holds less than a stripe, and past what was ever
	 * hashed */
	XXH3_state_t st = *h->st;
	memset(st.customSecret, 0, sizeof st.customSecret);
	size_t keep = sizeof st.buffer - 64;
	if (st.bufferedSize < keep)
		memset(st.buffer + st.bufferedSize, 0, keep - st.bufferedSize);
	if (st.totalLen < sizeof st.buffer)
		memset(st.buffer + st.totalLen, 0, sizeof st.buffer - st.totalLen);
	st.extSecret = NULL;
	st.reserved64 = 0; /* never set by a reset */
	buf_put(out, (const char *)&st, sizeof st);
}

struct cache_hasher *cache_hasher_load(const void *p, size_t n)
{
	uint32_t v;
	if (n != sizeof v + sizeof(XXH3_state_t))
		return NULL;
	memcpy(&v, p, sizeof v);
	struct cache_hasher *h = cache_hasher_plain();
	const unsigned char *secret = h->st->extSecret;
	size_t stripes = h->st->nbStripesPerBlock, limit = h->st->secretLimit;
	memcpy(h->st, (const char *)p + sizeof v, sizeof *h->st);
	/* what update() trusts: the buffer's fill, the block's stripes, the
	 * default secret (no seed; its address is this process's) */
	XXH3_state_t *st = h->st;
	st->extSecret = secret;
	if (v != XXH_versionNumber() || st->bufferedSize > sizeof st->buffer || st->useSeed ||
	    st->seed || st->nbStripesPerBlock != stripes || st->secretLimit != limit ||
	    st->nbStripesSoFar > st->nbStripesPerBlock) {
		XXH3_freeState(h->st);
		free(h);
		return NULL;
	}
	return h;
}

static void key_hex(const struct cache_key *k, char out[33])
{
	for (size_t i = 0; i < sizeof k->b; i++)
		snprintf(out + 2 * i, 3, "%02x", k->b[i]);
}

/* --- encoding --- */

/* The header every cache file starts with; the key's id is its last
 * part.  Returns its length, for cache_seal(). */
static size_t put_header(const struct seal_key *key, struct buf *b, enum kind kind)
{
	size_t start = b->len;
	buf_put(b, MAGIC, MAGIC_LEN);
	wire_put_u32(b, CACHE_FORMAT);
	wire_put_u32(b, (uint32_t)kind);
	wire_put_str(b, cache_version());
	buf_put(b, (const char *)key->id, SEAL_ID_BYTES);
	return b->len - start;
}

/* Ends the cache file in b, whose first hlen bytes are its header: its
 * seal under the user's key (seal.h), then an XXH3-64 checksum of all
 * before, which tells a damaged file from another user's or a forged
 * one.  Every kind of file is sealed here, and only here. */
static void cache_seal(const struct seal_key *key, struct buf *b, size_t hlen)
{
	unsigned char seal[SEAL_BYTES];
	seal_make(key, b->data, hlen, b->data + hlen, b->len - hlen, seal);
	buf_put(b, (const char *)seal, sizeof seal);
	wire_put_u64(b, XXH3_64bits(b->data, b->len));
}

/* How a cache file failed its checks. */
enum verdict {
	FILE_OK,
	FILE_DAMAGED,       /* its checksum, its header or its lengths */
	FILE_OTHER_VERSION, /* another binary's or format's: ignored silently */
	FILE_OTHER_KEY,     /* sealed by another user, or on another machine */
	FILE_FORGED,        /* this user's key id, but the seal does not match */
};

/* Checks data's checksum, header (of kind) and seal under key; on
 * success r reads the payload.  The one check every kind of file is
 * read through. */
static enum verdict cache_open_sealed(const struct seal_key *key, const char *data, size_t len,
				      enum kind kind, struct wire_rd *r)
{
	uint64_t sum;
	if (len < MAGIC_LEN + SEAL_BYTES + sizeof sum || memcmp(data, MAGIC, MAGIC_LEN) != 0)
		return FILE_DAMAGED;
	struct wire_rd tail = {data + len - sizeof sum, data + len, false};
	sum = wire_u64(&tail);
	if (XXH3_64bits(data, len - sizeof sum) != sum)
		return FILE_DAMAGED;
	const char *seal = data + len - sizeof sum - SEAL_BYTES;
	r->p = data + MAGIC_LEN;
	r->end = seal;
	r->bad = false;
	uint32_t format = wire_u32(r);
	if (r->bad)
		return FILE_DAMAGED;
	if (format != CACHE_FORMAT)
		return FILE_OTHER_VERSION; /* its header may be laid out otherwise */
	uint32_t k = wire_u32(r);
	struct span v = wire_span(r);
	unsigned char id[SEAL_ID_BYTES];
	wire_get(r, id, sizeof id);
	if (r->bad || k != (uint32_t)kind)
		return FILE_DAMAGED;
	const char *want = cache_version();
	if (v.len != strlen(want) || memcmp(v.p, want, v.len) != 0)
		return FILE_OTHER_VERSION;
	if (memcmp(id, key->id, sizeof id) != 0)
		return FILE_OTHER_KEY;
	size_t hlen = (size_t)(r->p - data);
	if (!seal_check(key, data, hlen, r->p, (size_t)(seal - r->p),
			(const unsigned char *)seal))
		return FILE_FORGED;
	return FILE_OK;
}

/* The words for a verdict, in "the build cache is %s: ignored"; NULL
 * for one that is not worth a warning. */
static const char *verdict_why(enum verdict v)
{
	switch (v) {
	case FILE_DAMAGED:
		return "damaged or not logdown's";
	case FILE_OTHER_KEY:
		return "not this user's (sealed with another key: written by another user or on "
		       "another machine)";
	case FILE_FORGED:
		return "altered (its seal does not match: changed by something other than logdown)";
	default:
		return NULL;
	}
}

/* --- the cache --- */

/* Where this build's read of a file stopped on the way (a resume
 * point, the size the file had before it grew): the hash state of its
 * bytes up to there, so that a later step hashes only what follows. */
#define MARKS 2
struct mark {
	uint64_t at;
	XXH3_state_t *st;
};

/* A big file's *proof* (appends, docs/internals.md): the XXH3-128 of
 * each `piece`-byte piece of its first `size` bytes (the last piece may
 * be shorter), and the content hash's streaming state at `size` and at
 * the offsets the read that made it stopped at (its marks).  A later
 * read of the file grown past `size` checks the pieces on both cores
 * and, when every one matches, goes on hashing from the state at
 * `size`: the content hash is the one a read from the first byte gives,
 * without that sequential pass.  Kept on the file's row. */
#define PROOF_STATES (MARKS + 1)
struct proof {
	uint64_t size, piece;
	size_t n; /* pieces: size / piece, rounded up */
	struct cache_key *pieces;
	size_t nst;
	uint64_t at[PROOF_STATES]; /* ascending; the last is size */
	XXH3_state_t *st[PROOF_STATES];
};

struct file_entry {
	char *path;
	int64_t sig[5]; /* size, mtime ns, inode, device, ctime ns */
	struct cache_key hash;
	bool used;
	/* hashed by this build less than 2 s after the file changed: its
	 * signature proves nothing to a later build, and the row is
	 * written with inode and device 0 (which no file has), never to
	 * match again; it still tells what the file held at that size
	 * (sig[0]), for a later build's read to check (appends) */
	bool racy;
	/* ... but this build's read of it began more than a tick of its
	 * clock after that change (20 ms; 2 s without nanoseconds), so that
	 * a write since would have moved its signature (cache_fd_racy_still()) */
	bool read_settled;
	/* its lines, counted by a log page (cache_fd_lines_note()) or by
	 * the read that hashed it, for the content of hash: ix.starts is
	 * NULL until they are */
	long lines;
	unsigned long long bytes;
	struct line_index ix;
	/* In memory only, from this build's read of the file: where it
	 * stopped on the way, and, when its first grew_size bytes hashed
	 * as the row's content before that read (grew_hash), that it only
	 * grew since. */
	struct mark marks[MARKS];
	size_t nmarks;
	bool grew;
	uint64_t grew_size;
	struct cache_key grew_hash;
	/* the proof of its content (size sig[0]), or none (n 0) */
	struct proof pf;
};

/* Forgets e's lines: its content changed, or it never had them. */
static void entry_drop_lines(struct file_entry *e)
{
	free(e->ix.starts);
	memset(&e->ix, 0, sizeof e->ix);
	e->lines = 0;
	e->bytes = 0;
}

static XXH3_state_t *state_dup(const XXH3_state_t *from)
{
	XXH3_state_t *st = XXH3_createState();
	if (!st) {
		fprintf(stderr, "logdown: out of memory\n");
		abort();
	}
	if (from)
		XXH3_copyState(st, from);
	else
		XXH3_128bits_reset(st);
	return st;
}

static void proof_free(struct proof *p)
{
	free(p->pieces);
	for (size_t i = 0; i < p->nst; i++)
		XXH3_freeState(p->st[i]);
	memset(p, 0, sizeof *p);
}

static void proof_dup(struct proof *to, const struct proof *from)
{
	*to = *from;
	to->pieces = xmalloc(from->n * sizeof *to->pieces);
	memcpy(to->pieces, from->pieces, from->n * sizeof *to->pieces);
	for (size_t i = 0; i < from->nst; i++)
		to->st[i] = state_dup(from->st[i]);
}

/* The proof's state at `at`, or NULL. */
static const XXH3_state_t *proof_state(const struct proof *p, uint64_t at)
{
	for (size_t i = 0; i < p->nst; i++)
		if (p->at[i] == at)
			return p->st[i];
	return NULL;
}

/* A proof in the making: fed a file's bytes in order (piecer_feed()),
 * it hashes each piece of them. */
struct piecer {
	uint64_t piece, at; /* bytes fed */
	XXH3_state_t *st;   /* the piece in progress (the last one fed) */
	struct cache_key *done;
	size_t n, cap;
	bool bad; /* a byte was missed: no proof */
};

static void piecer_feed(struct piecer *pc, const char *p, size_t n)
{
	while (n) {
		uint64_t in = pc->at % pc->piece;
		if (in == 0 && pc->at > 0) { /* the previous piece is whole */
			if (pc->n == pc->cap) {
				pc->cap = pc->cap ? 2 * pc->cap : 16;
				pc->done = xrealloc(pc->done, pc->cap * sizeof *pc->done);
			}
			pc->done[pc->n++] = key_of(XXH3_128bits_digest(pc->st));
			XXH3_128bits_reset(pc->st);
		}
		size_t take = n < pc->piece - in ? n : (size_t)(pc->piece - in);
		XXH3_128bits_update(pc->st, p, take);
		p += take;
		n -= take;
		pc->at += take;
	}
}

/* The pieces fed so far, into pf (its states not set); pc is spent. */
static void piecer_end(struct piecer *pc, struct proof *pf)
{
	pf->size = pc->at;
	pf->piece = pc->piece;
	pf->n = pc->n + 1;
	pf->pieces = xrealloc(pc->done, pf->n * sizeof *pf->pieces);
	pf->pieces[pc->n] = key_of(XXH3_128bits_digest(pc->st));
	XXH3_freeState(pc->st);
	memset(pc, 0, sizeof *pc);
}

static void piecer_free(struct piecer *pc)
{
	if (pc->st)
		XXH3_freeState(pc->st);
	free(pc->done);
	memset(pc, 0, sizeof *pc);
}

/* Forgets what this build's read of e found. */
static void entry_drop_read(struct file_entry *e)
{
	for (size_t i = 0; i < e->nmarks; i++)
		XXH3_freeState(e->marks[i].st);
	e->nmarks = 0;
	e->grew = false;
}

struct proof_pending;
static bool proof_join(struct proof_pending *p);

struct cache {
	pthread_mutex_t mu;
	char *dir;
	/* The cache folder and its runs folder, opened without following a
	 * link (O_NOFOLLOW): every file in them is reached relative to
	 * these, never by a path that a planted link could redirect; -1
	 * while they do not exist (or are refused: nothing is read). */
	int dfd, rfd;
	bool writable;
	/* the user's key (seal.h): every file read must be sealed with
	 * it, every file written is */
	struct seal_key key;
	bool warned;    /* the one warning was written */
	char *bad_file, *bad_why; /* the first problem found, until written */
	bool bad_key;   /* ... and it is the key's */
	bool dir_ready;
	struct file_entry *files;
	size_t nfiles, files_cap;
	size_t *index; /* open addressing over file indexes + 1 */
	size_t index_cap;
	/* the runs this build used: cache_runs_prune() keeps only these */
	struct cache_key *kept;
	size_t nkept, kept_cap;
	/* the memos of this build's reports: cache_memo_prune() keeps only
	 * these (their file names, "memo-" and 16 hex digits) */
	char **memos;
	size_t nmemos, memos_cap;
	/* the run stores this build wrote, with their signatures just after:
	 * noted as checked when the cache is closed (note_written()) */
	struct written {
		char name[40];
		int64_t sig[5];
	} *written;
	size_t nwritten, written_cap;
	/* run stores whose seal is being taken on threads of their own
	 * (run_put()): joined by seals_join(); each says when it is done
	 * (sealed), for seal_wait() */
	struct pending_seal **pending;
	size_t npending, pending_cap;
	pthread_cond_t sealed;
	/* reads may leave a proof's check running (cache_speculate()):
	 * those checks, joined by cache_proofs_join(); `spec_failed`, one
	 * of them failed: nothing of this build is written back */
	bool speculate, spec_failed;
	struct proof_pending *proofs;
	/* the files table is written no sooner (cache_output_note()) */
	int64_t settle_due;
};

/* Remembers the first problem: one warning per build, written by
 * cache_report() on the build's own thread. */
static void warn_damaged(struct cache *c, const char *file, const char *why)
{
	pthread_mutex_lock(&c->mu);
	if (!c->warned && !c->bad_file) {
		c->bad_file = xstrdup(file);
		c->bad_why = xstrdup(why);
	}
	pthread_mutex_unlock(&c->mu);
}

void cache_report(struct cache *c, struct diag *d)
{
	if (!c || !c->bad_file || c->warned)
		return;
	if (c->bad_key)
		diag_warning(d, loc_line(c->bad_file, 0),
			     "the build cache's key is %s: the build runs without the cache (it "
			     "must be a file of yours that only you can read, in a folder only "
			     "you can write to; or remove it, and logdown makes a new one)",
			     c->bad_why);
	else
		diag_warning(d, loc_line(c->bad_file, 0),
			     "the build cache is %s: ignored (logdown rebuilds it; `logdown clean` "
			     "removes it)",
			     c->bad_why);
	c->warned = true;
	free(c->bad_file);
	free(c->bad_why);
	c->bad_file = c->bad_why = NULL;
}

static size_t path_hash(const char *s)
{
	return (size_t)XXH3_64bits(s, strlen(s));
}

static void index_insert(struct cache *c, size_t i)
{
	size_t mask = c->index_cap - 1, h = path_hash(c->files[i].path) & mask;
	while (c->index[h])
		h = (h + 1) & mask;
	c->index[h] = i + 1;
}

static struct file_entry *find_file(struct cache *c, const char *path)
{
	if (!c->index_cap)
		return NULL;
	size_t mask = c->index_cap - 1, h = path_hash(path) & mask;
	for (; c->index[h]; h = (h + 1) & mask)
		if (strcmp(c->files[c->index[h] - 1].path, path) == 0)
			return &c->files[c->index[h] - 1];
	return NULL;
}

static struct file_entry *add_file(struct cache *c, const char *path)
{
	if (c->nfiles == c->files_cap) {
		c->files_cap = c->files_cap ? 2 * c->files_cap : 64;
		c->files = xrealloc(c->files, c->files_cap * sizeof *c->files);
	}
	if (2 * (c->nfiles + 1) > c->index_cap) {
		free(c->index);
		c->index_cap = c->index_cap ? 2 * c->index_cap : 128;
		c->index = xcalloc(c->index_cap, sizeof *c->index);
		for (size_t i = 0; i < c->nfiles; i++)
			index_insert(c, i);
	}
	struct file_entry *e = &c->files[c->nfiles];
	memset(e, 0, sizeof *e);
	e->path = xstrdup(path);
	index_insert(c, c->nfiles++);
	return e;
}

/* Reads name in the folder open at dfd into b: a regular file, opened
 * without following a link.  False with errno (ELOOP: a link, EINVAL:
 * not a regular file). */
static bool read_at(int dfd, const char *name, struct buf *b)
{
	if (dfd < 0) {
		errno = ENOENT;
		return false;
	}
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return false;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return false;
	}
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return false;
		}
		if (n == 0)
			break;
		buf_put(b, chunk, (size_t)n);
	}
	close(fd);
	return true;
}

/* Why read_at() failed, for the one warning; NULL when the file is
 * simply not there. */
static const char *read_problem(int e)
{
	return e == ENOENT ? NULL
	       : e == ELOOP ? "damaged (a symbolic link where a file of it goes: not followed, "
			      "removed)"
	       : e == EINVAL ? "damaged (something other than a file where a file of it goes)"
			     : "unreadable";
}

/* A row's proof as proof_write() put it, into *pf (none: n 0) for a
 * file of `size` bytes whose content hash is `hash`; r bad when it is
 * not consistent.  False (pf empty) when there is none or it cannot be
 * used here (its states saved by another xxHash: not damage). */
static bool proof_read(struct wire_rd *r, int64_t size, const struct cache_key *hash,
		       struct proof *pf)
{
	uint64_t n = wire_u64(r);
	if (r->bad || n == 0)
		return false;
	pf->size = wire_u64(r);
	pf->piece = wire_u64(r);
	if (r->bad || pf->piece == 0 || pf->size != (uint64_t)size ||
	    n != pf->size / pf->piece + (pf->size % pf->piece != 0) ||
	    n > (uint64_t)(r->end - r->p) / sizeof pf->pieces->b) {
		r->bad = true;
		return false;
	}
	pf->n = (size_t)n;
	pf->pieces = xmalloc(pf->n * sizeof *pf->pieces);
	for (size_t j = 0; j < pf->n; j++)
		wire_get(r, pf->pieces[j].b, sizeof pf->pieces[j].b);
	uint64_t nst = wire_u64(r);
	if (r->bad || nst == 0 || nst > PROOF_STATES) {
		r->bad = true;
		proof_free(pf);
		return false;
	}
	bool usable = true;
	for (uint64_t j = 0; j < nst && !r->bad; j++) {
		uint64_t at = wire_u64(r);
		struct span sp = wire_span(r);
		if (r->bad || at > pf->size || (pf->nst && at <= pf->at[pf->nst - 1]) ||
		    (j + 1 == nst && at != pf->size)) {
			r->bad = true;
			break;
		}
		struct cache_hasher *h = cache_hasher_load(sp.p, sp.len);
		if (!h) {
			usable = false;
			continue;
		}
		pf->at[pf->nst] = at;
		pf->st[pf->nst++] = h->st;
		free(h);
	}
	/* the state at its end is the row's content hash's */
	if (!r->bad && usable) {
		struct cache_key end = key_of(XXH3_128bits_digest(pf->st[pf->nst - 1]));
		if (memcmp(end.b, hash->b, sizeof end.b) != 0)
			r->bad = true;
	}
	if (r->bad || !usable) {
		proof_free(pf);
		return false;
	}
	return true;
}

static void proof_write(struct buf *b, const struct proof *pf)
{
	wire_put_u64(b, pf->n);
	if (!pf->n)
		return;
	wire_put_u64(b, pf->size);
	wire_put_u64(b, pf->piece);
	for (size_t j = 0; j < pf->n; j++)
		buf_put(b, (const char *)pf->pieces[j].b, sizeof pf->pieces[j].b);
	wire_put_u64(b, pf->nst);
	struct buf sb = BUF_INIT;
	for (size_t j = 0; j < pf->nst; j++) {
		wire_put_u64(b, pf->at[j]);
		struct cache_hasher h = {pf->st[j]};
		buf_clear(&sb);
		cache_hasher_save(&h, &sb);
		wire_put_bytes(b, sb.data, sb.len);
	}
	buf_free(&sb);
}

static void load_files(struct cache *c)
{
	char *path = path_join(c->dir, "files");
	struct buf b = BUF_INIT;
	if (!read_at(c->dfd, "files", &b)) {
		const char *why = read_problem(errno);
		if (why)
			warn_damaged(c, path, why);
		goto out;
	}
	struct wire_rd r;
	enum verdict v = cache_open_sealed(&c->key, b.data, b.len, KIND_FILES, &r);
	if (verdict_why(v)) {
		warn_damaged(c, path, verdict_why(v));
		goto out;
	}
	if (v != FILE_OK)
		goto out;
	uint64_t n = wire_u64(&r);
	for (uint64_t i = 0; i < n && !r.bad; i++) {
		char *p = wire_str(&r);
		int64_t sig[5];
		struct cache_key k;
		for (int j = 0; j < 5; j++)
			sig[j] = (int64_t)wire_u64(&r);
		wire_get(&r, k.b, sizeof k.b);
		/* its lines, when a log page counted them */
		uint64_t nstarts = wire_u64(&r), lines = 0, bytes = 0, every = 0;
		off_t *starts = NULL;
		if (nstarts) {
			lines = wire_u64(&r);
			bytes = wire_u64(&r);
			every = wire_u64(&r);
			if (r.bad || every == 0 || lines > LONG_MAX || every > LONG_MAX ||
			    nstarts > (uint64_t)(r.end - r.p) / 8)
				r.bad = true;
			else
				starts = xmalloc((size_t)nstarts * sizeof *starts);
			for (uint64_t j = 0; j < nstarts && !r.bad; j++)
				starts[j] = (off_t)wire_u64(&r);
		}
		/* its proof, when a read made one */
		struct proof pf;
		memset(&pf, 0, sizeof pf);
		bool pf_ok = proof_read(&r, sig[0], &k, &pf);
		if (!r.bad && !find_file(c, p)) {
			struct file_entry *e = add_file(c, p);
			memcpy(e->sig, sig, sizeof sig);
			e->hash = k;
			e->racy = sig[2] == 0 && sig[3] == 0;
			if (starts) {
				e->lines = (long)lines;
				e->bytes = bytes;
				e->ix = (struct line_index){(long)every, starts, (size_t)nstarts};
				starts = NULL;
			}
			if (pf_ok) {
				e->pf = pf;
				memset(&pf, 0, sizeof pf);
			}
		}
		proof_free(&pf);
		free(starts);
		free(p);
	}
	if (r.bad || r.p != r.end) {
		warn_damaged(c, path, "damaged (its file list is inconsistent)");
		for (size_t i = 0; i < c->nfiles; i++) {
			free(c->files[i].path);
			entry_drop_lines(&c->files[i]);
			entry_drop_read(&c->files[i]);
			proof_free(&c->files[i].pf);
		}
		c->nfiles = 0;
		if (c->index) /* none before the first entry */
			memset(c->index, 0, c->index_cap * sizeof *c->index);
	}
out:
	buf_free(&b);
	free(path);
}

/* Is name in the folder open at dfd a regular file (not a link)? */
static bool regular_at(int dfd, const char *name)
{
	struct stat st;
	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* Opens the runs folder inside the cache folder (c->dfd): a link there
 * is never ours (logdown makes a folder), so it is removed (the link,
 * not what it points to) and, when writable, replaced. */
static void open_runs(struct cache *c, bool make)
{
	c->rfd = openat(c->dfd, "runs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->rfd >= 0 || errno == ENOENT) {
		if (c->rfd < 0 && make && mkdirat(c->dfd, "runs", 0755) == 0)
			c->rfd = openat(c->dfd, "runs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		return;
	}
	char *path = path_join(c->dir, "runs");
	warn_damaged(c, path, "damaged (its runs folder is a symbolic link or not a folder: not "
			      "followed, removed)");
	free(path);
	if (c->writable && unlinkat(c->dfd, "runs", 0) == 0 && make &&
	    mkdirat(c->dfd, "runs", 0755) == 0)
		c->rfd = openat(c->dfd, "runs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

struct cache *cache_open(const char *root, bool writable)
{
	struct cache *c = xcalloc(1, sizeof *c);
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->sealed, NULL);
	c->dir = path_join(root, CACHE_DIR);
	c->writable = writable;
	c->dfd = c->rfd = -1;
	char *key_at;
	const char *key_why;
	if (!seal_key_load(&c->key, &key_at, &key_why)) {
		/* Without the user's key nothing in it can be trusted, and
		 * nothing written would be this user's: no cache at all. */
		if (key_why) {
			warn_damaged(c, key_at, key_why);
			c->bad_key = true;
		}
		c->writable = false;
		free(key_at);
		return c;
	}
	struct stat st;
	if (lstat(c->dir, &st) != 0)
		return c; /* made when the build first writes to it */
	if (S_ISLNK(st.st_mode)) {
		/* Perhaps the user's own (a cache on another disk), perhaps
		 * planted: either way never followed, and not removed. */
		warn_damaged(c, c->dir,
			     "a symbolic link: not followed, the build runs without it (remove "
			     "the link to have one)");
		c->writable = false;
		return c;
	}
	c->dfd = S_ISDIR(st.st_mode)
			 ? open(c->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			 : -1;
	if (c->dfd < 0 || !regular_at(c->dfd, TAG_NAME)) {
		warn_damaged(c, c->dir, "not logdown's (no " TAG_NAME " inside)");
		c->writable = false; /* never write into someone else's folder */
		if (c->dfd >= 0)
			close(c->dfd);
		c->dfd = -1;
		return c;
	}
	load_files(c);
	open_runs(c, false);
	return c;
}

/* Files are written as name in the folder open at dfd through a
 * temporary file renamed into place: a reader sees the old file or the
 * new one, never half of one.  The temporary file is created afresh
 * (O_EXCL, O_NOFOLLOW): a link or file planted under its name makes the
 * write fail, never go through it; the rename replaces a link at name
 * itself, never what it points to.  tmp_create() gives the temporary
 * file's descriptor and name (*tmp, freed by tmp_commit()), or -1. */
static int tmp_create(int dfd, const char *name, char **tmp)
{
	*tmp = xasprintf("%s.tmp-%ld-%lx", name, (long)getpid(), (unsigned long)pthread_self());
	int fd = openat(dfd, *tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(*tmp);
		*tmp = NULL;
	}
	return fd;
}

/* Closes fd, the temporary file tmp written by tmp_create(), and renames
 * it to name when ok (else removes it); frees tmp. */
static bool tmp_commit(int dfd, int fd, char *tmp, const char *name, bool ok)
{
	ok = close(fd) == 0 && ok;
	if (!ok || renameat(dfd, tmp, dfd, name) != 0) {
		unlinkat(dfd, tmp, 0);
		ok = false;
	}
	free(tmp);
	return ok;
}

/* Writes data as name in the folder open at dfd (as above). */
static void write_at(int dfd, const char *name, const struct buf *data)
{
	char *tmp;
	int fd = tmp_create(dfd, name, &tmp);
	if (fd < 0)
		return;
	const char *p = data->data;
	size_t left = data->len;
	bool ok = true;
	while (ok && left > 0) {
		ssize_t n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		ok = n > 0;
		if (ok) {
			p += n;
			left -= (size_t)n;
		}
	}
	tmp_commit(dfd, fd, tmp, name, ok);
}

/* Makes the cache folder (once); false when it cannot be. */
static bool ensure_dir(struct cache *c)
{
	if (!c->writable)
		return false;
	pthread_mutex_lock(&c->mu);
	if (!c->dir_ready) {
		/* mkdir() does not follow a link planted in the meantime
		 * (EEXIST), and the folder is opened without following one. */
		if (c->dfd < 0 && (mkdir(c->dir, 0755) == 0 || errno == EEXIST))
			c->dfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (c->dfd >= 0 && !regular_at(c->dfd, TAG_NAME)) {
			struct buf tag = BUF_INIT;
			buf_put(&tag, TAG_TEXT, sizeof TAG_TEXT - 1);
			write_at(c->dfd, TAG_NAME, &tag);
			buf_free(&tag);
		}
		if (c->dfd >= 0 && c->rfd < 0)
			open_runs(c, true);
		c->dir_ready = c->dfd >= 0 && c->rfd >= 0 && regular_at(c->dfd, TAG_NAME);
		if (!c->dir_ready)
			c->writable = false; /* a read-only project: build without writing it */
	}
	bool ok = c->dir_ready;
	pthread_mutex_unlock(&c->mu);
	return ok;
}


static bool run_name_key(const char *name, struct cache_key *out);
static int cmp_key(const void *a, const void *b);

/* Is the row kept for the next build?  Those this build used; the raw
 * copies of the output (cache_output_note()), which a build that reuses
 * a report's folder whole does not look at (a stale one matches no file,
 * and `logdown clean` removes them with the rest); and the memo of a
 * store this build kept without loading it (a reused page's run).
 * c->kept is sorted. */
static bool kept_row(const struct cache *c, const struct file_entry *e)
{
	struct cache_key k;
	return e->used || strncmp(e->path, "output ", 7) == 0 ||
	       (strncmp(e->path, "run store ", 10) == 0 && run_name_key(e->path + 10, &k) &&
		c->nkept && bsearch(&k, c->kept, c->nkept, sizeof *c->kept, cmp_key));
}

static void note_written(struct cache *c);
static void sleep_until(int64_t due);
static void seals_join(struct cache *c);
static void seal_wait(struct cache *c, const struct cache_key *key);

void cache_close(struct cache *c)
{
	if (!c)
		return;
	/* (a build joins them before its commit; this is the backstop:
	 * rows resting on a failed check are not written) */
	cache_proofs_join(c);
	seals_join(c);
	note_written(c);
	if (c->writable && !c->spec_failed && ensure_dir(c)) {
		sleep_until(c->settle_due);
		struct buf b = BUF_INIT;
		size_t hlen = put_header(&c->key, &b, KIND_FILES);
		size_t n = 0;
		if (c->nkept > 1)
			qsort(c->kept, c->nkept, sizeof *c->kept, cmp_key);
		for (size_t i = 0; i < c->nfiles; i++)
			n += kept_row(c, &c->files[i]);
		wire_put_u64(&b, n);
		for (size_t i = 0; i < c->nfiles; i++) {
			const struct file_entry *e = &c->files[i];
			if (!kept_row(c, e))
				continue;
			wire_put_str(&b, e->path);
			for (int j = 0; j < 5; j++)
				wire_put_u64(&b, e->racy && (j == 2 || j == 3) ? 0 : (uint64_t)e->sig[j]);
			buf_put(&b, (const char *)e->hash.b, sizeof e->hash.b);
			wire_put_u64(&b, e->ix.n);
			if (e->ix.n) {
				wire_put_u64(&b, (uint64_t)e->lines);
				wire_put_u64(&b, e->bytes);
				wire_put_u64(&b, (uint64_t)e->ix.every);
				for (size_t j = 0; j < e->ix.n; j++)
					wire_put_u64(&b, (uint64_t)e->ix.starts[j]);
			}
			proof_write(&b, &e->pf);
		}
		cache_seal(&c->key, &b, hlen);
		write_at(c->dfd, "files", &b);
		buf_free(&b);
	}
	if (c->rfd >= 0)
		close(c->rfd);
	if (c->dfd >= 0)
		close(c->dfd);
	for (size_t i = 0; i < c->nfiles; i++) {
		free(c->files[i].path);
		entry_drop_lines(&c->files[i]);
		entry_drop_read(&c->files[i]);
		proof_free(&c->files[i].pf);
	}
	free(c->files);
	free(c->index);
	free(c->kept);
	for (size_t i = 0; i < c->nmemos; i++)
		free(c->memos[i]);
	free(c->memos);
	free(c->dir);
	free(c->bad_file);
	free(c->bad_why);
	memset(&c->key, 0, sizeof c->key);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->sealed);
	free(c);
}

static void sig_of(const struct stat *stp, int64_t sig[5])
{
	const struct stat st = *stp;
	sig[0] = (int64_t)st.st_size;
	sig[1] = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	sig[2] = (int64_t)st.st_ino;
	sig[3] = (int64_t)st.st_dev;
	sig[4] = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
}

static bool stat_sig(const char *path, int64_t sig[5])
{
	struct stat st;
	if (stat(path, &st) != 0)
		return false;
	sig_of(&st, sig);
	return true;
}

/* What a read that hashes a file does on the way. */
struct hash_read {
	/* offsets (ascending, none 0) where the hash state is kept: st[i]
	 * stays NULL when the file is shorter */
	uint64_t at[MARKS];
	size_t n;
	XXH3_state_t *st[MARKS];
	/* when count_at is one of them: count the lines of the bytes from
	 * there on, going on from a count of those before it (old_lines,
	 * old_ix), into lc (counted once the read got there) */
	bool count;
	uint64_t count_at;
	long old_lines;
	struct line_index old_ix;
	bool counted;
	struct line_count lc;
	/* a proof of the file's first in->size bytes (the row's, copied:
	 * in_hash their hash), checked before reading them (proved: they
	 * were not read) */
	struct proof in;
	struct cache_key in_hash;
	bool proved;
	/* make a proof of what it reads (a file big enough: `made`, into
	 * out); `settled`: the read begins more than a tick of the file's
	 * clock after its last change, so that a write while it reads
	 * moves its signature */
	bool make, settled, made;
	struct proof out;
	/* may leave the check of `in` running (cache_speculate()): then
	 * `proved` is a promise, and `pending` the check to join */
	bool speculate;
	struct proof_pending *pending;
};

/* Asks hr to stop at `at` (kept in order, once). */
static void hash_read_mark(struct hash_read *hr, uint64_t at)
{
	size_t i = 0;
	while (i < hr->n && hr->at[i] < at)
		i++;
	if ((i < hr->n && hr->at[i] == at) || hr->n == MARKS)
		return;
	memmove(hr->at + i + 1, hr->at + i, (hr->n - i) * sizeof *hr->at);
	hr->at[i] = at;
	hr->n++;
}

static void hash_read_free(struct hash_read *hr)
{
	for (size_t i = 0; i < hr->n; i++)
		if (hr->st[i])
			XXH3_freeState(hr->st[i]);
	free(hr->old_ix.starts);
	if (hr->counted)
		free(hr->lc.ix.starts);
	proof_free(&hr->in);
	proof_free(&hr->out);
	if (hr->pending)
		proof_join(hr->pending); /* (a read that failed after it) */
	memset(hr, 0, sizeof *hr);
}

/* The digest of the state kept at `at`; false when the read did not
 * stop there. */
static bool hash_read_digest(const struct hash_read *hr, uint64_t at, struct cache_key *out)
{
	for (size_t i = 0; i < hr->n; i++)
		if (hr->at[i] == at && hr->st[i]) {
			*out = key_of(XXH3_128bits_digest(hr->st[i]));
			return true;
		}
	return false;
}

/* Bytes a read takes at a time: small enough for the CPU's second-level
 * cache, where XXH3 then finds them (128 KiB hashed 1 GB in 0.14 s of
 * CPU here, 1 MiB in 0.17 s: docs/performance.md). */
#define READ_CHUNK ((size_t)128 << 10)

/* A file's bytes hashed where the page cache holds them, through a
 * mapping, rather than copied out by pread(): 1 GB in 0.07 s of CPU
 * against 0.14 s (docs/performance.md, "Appending to a 1 GB log").
 * The file is mapped a window at a time, so that the resident set
 * grows by a window, not by the file; a file under MAP_MIN is read. */
#define MAP_WINDOW ((size_t)16 << 20)
#define MAP_CHUNK ((size_t)1 << 20)
#define MAP_MIN ((uint64_t)4 << 20)

struct hash_map {
	int fd;
	uint64_t end; /* mapped up to here (the file's size when the read began) */
	char *p;      /* the window: [off, off + len) of the file, or NULL */
	uint64_t off;
	size_t len;
	bool off_now; /* failed or faulted: pread() from then on */
	XXH3_state_t *save;
	size_t win; /* the window's size: MAP_WINDOW, or a power of two below */
};

/* LOGDOWN_TEST_SAY_PROOF, for tests only: a read that checks a proof
 * (hash_fd_read()) says on stderr whether it held.
 * LOGDOWN_TEST_TRUNCATE_MAPPED, for tests only (tests/e2e/test_appends.c):
 * "N" cuts the file being hashed to N bytes as soon as the window
 * holding byte N is mapped, so that the bytes after it are read where
 * the mapping no longer has pages (SIGBUS).  LOGDOWN_TEST_NO_MAP reads
 * every file with pread(), so that a test counting the bytes a build
 * reads (the kernel's rchar, which a mapping's reads are not in) sees
 * the hash's. */
static long long truncate_mapped_at(void)
{
	const char *v = test_hook_env("LOGDOWN_TEST_TRUNCATE_MAPPED");
	return v ? strtoll(v, NULL, 10) : -1;
}

static void map_drop(struct hash_map *m)
{
	if (m->p)
		munmap(m->p, m->len);
	m->p = NULL;
}

/* How many bytes from `at` the next mapped chunk may take (0: read
 * them with pread()). */
static size_t map_span(const struct hash_map *m, uint64_t at)
{
	if (m->off_now || at >= m->end)
		return 0;
	uint64_t win_end = (at & ~(uint64_t)(m->win - 1)) + m->win;
	uint64_t to = win_end < m->end ? win_end : m->end;
	return to - at < MAP_CHUNK ? (size_t)(to - at) : MAP_CHUNK;
}

/* Hashes the file's bytes [at, at + n) (inside one window: map_span())
 * into st from the mapping; false when the window could not be mapped
 * or the read faulted (the file cut short since: SIGBUS, caught by a
 * guard): st is then as it was, and the caller reads with pread(). */
static bool map_hash(struct hash_map *m, uint64_t at, size_t n, XXH3_state_t *st, char *last,
		     struct piecer *pc)
{
	if (!m->p || at < m->off || at + n > m->off + m->len) {
		map_drop(m);
		uint64_t off = at & ~(uint64_t)(m->win - 1);
		size_t len = m->end - off < m->win ? (size_t)(m->end - off) : m->win;
		void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, m->fd, (off_t)off);
		if (p == MAP_FAILED) {
			m->off_now = true;
			return false;
		}
		m->p = p;
		m->off = off;
		m->len = len;
		long long cut = truncate_mapped_at();
		if (cut >= 0 && (uint64_t)cut >= off && (uint64_t)cut < off + len) {
			char self[64];
			snprintf(self, sizeof self, "/proc/self/fd/%d", m->fd);
			int w = open(self, O_WRONLY | O_CLOEXEC);
			if (w >= 0) {
				if (ftruncate(w, (off_t)cut) != 0)
					perror("logdown: LOGDOWN_TEST_TRUNCATE_MAPPED");
				close(w);
			}
		}
	}
	XXH3_copyState(m->save, st);
	struct map_guard g;
	if (sigsetjmp(g.jb, 1) == 0) {
		map_guard_arm(&g, m->p, m->len);
		const char *p = m->p + (at - m->off);
		XXH3_128bits_update(st, p, n);
		if (pc)
			piecer_feed(pc, p, n);
		*last = p[n - 1];
		map_guard_disarm(&g);
		return true;
	}
	/* cut short while mapped: what this chunk hashed is undone (and
	 * no proof is made of the read) */
	if (pc)
		pc->bad = true;
	XXH3_copyState(st, m->save);
	map_drop(m);
	m->off_now = true;
	return false;
}

/* A proof's piece size: 64 MiB (sixteen pieces for a 1 GB log, eight
 * on each core).  LOGDOWN_TEST_PIECE (bytes, tests only) makes small
 * logs of several pieces. */
static uint64_t piece_size(void)
{
	const char *v = getenv("LOGDOWN_TEST_PIECE");
	long long n = v ? strtoll(v, NULL, 10) : 0;
	return n > 0 ? (uint64_t)n : (uint64_t)64 << 20;
}

/* Threads that check a proof's pieces: LOGDOWN_HASH_THREADS (1 or 2),
 * else 2 where there are two cores. */
static int hash_threads(void)
{
	const char *e = getenv("LOGDOWN_HASH_THREADS");
	if (e && *e)
		return atoi(e) >= 2 ? 2 : 1;
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
}

/* Bytes [at, to) of m's file into st, through m's mapping where it can,
 * else pread() into buf (READ_CHUNK bytes); false when the file ends
 * before `to` or cannot be read. */
static bool hash_span(struct hash_map *m, char *buf, uint64_t at, uint64_t to, XXH3_state_t *st)
{
	char last;
	while (at < to) {
		size_t mapped = map_span(m, at);
		if (mapped > to - at)
			mapped = (size_t)(to - at);
		if (mapped && map_hash(m, at, mapped, st, &last, NULL)) {
			at += mapped;
			continue;
		}
		size_t want = to - at < READ_CHUNK ? (size_t)(to - at) : READ_CHUNK;
		ssize_t n = pread(m->fd, buf, want, (off_t)at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		XXH3_128bits_update(st, buf, (size_t)n);
		at += (uint64_t)n;
	}
	return true;
}

/* One thread's share of a proof's check: pieces [k0, k1) of the file's
 * first `size` bytes, each compared with the proof's; `last`, the state
 * of piece k1 - 1 at its end (the piece a read goes on from).  With
 * `next`, the threads sharing it take the pieces of [k0, k1) one at a
 * time, whichever is free first (so that they end together however the
 * cores are shared), and `last` is not kept. */
struct piece_check {
	int fd;
	bool map;
	size_t win; /* its mapping's window */
	const struct proof *pf;
	size_t k0, k1;
	XXH3_state_t *last;
	bool same;
	atomic_size_t *next;
	atomic_bool *failed; /* with next: a piece differed, stop */
};

/* The next piece pk checks, k1 when none is left. */
static size_t piece_take(struct piece_check *pk, size_t k)
{
	if (!pk->next)
		return k + 1;
	if (atomic_load(pk->failed))
		return pk->k1;
	size_t t = atomic_fetch_add(pk->next, 1);
	return t < pk->k1 ? t : pk->k1;
}

static void *piece_check_main(void *arg)
{
	struct piece_check *pk = arg;
	const struct proof *pf = pk->pf;
	struct hash_map m = {pk->fd, pf->size, NULL, 0, 0, !pk->map, NULL, pk->win};
	if (pk->map)
		m.save = state_dup(NULL);
	char *buf = xmalloc(READ_CHUNK);
	XXH3_state_t *st = state_dup(NULL);
	pk->same = true;
	size_t k = pk->next ? piece_take(pk, 0) : pk->k0;
	for (; k < pk->k1 && pk->same; k = piece_take(pk, k)) {
		XXH3_128bits_reset(st);
		uint64_t from = k * pf->piece, to = from + pf->piece < pf->size ? from + pf->piece : pf->size;
		struct cache_key got = {{0}};
		pk->same = hash_span(&m, buf, from, to, st);
		if (pk->same)
			got = key_of(XXH3_128bits_digest(st));
		pk->same = pk->same && memcmp(got.b, pf->pieces[k].b, sizeof got.b) == 0;
		if (!pk->same && pk->failed)
			atomic_store(pk->failed, true);
	}
	if (pk->same && !pk->next)
		pk->last = st;
	else
		XXH3_freeState(st);
	map_drop(&m);
	if (m.save)
		XXH3_freeState(m.save);
	free(buf);
	return NULL;
}

/* Do fd's first pf->size bytes still hash, piece by piece, as pf says?
 * Checked on two threads (each its half of the pieces: any byte changed
 * changes its piece's XXH3-128, as it would the whole's).  *last: the
 * last piece's state at pf->size (caller frees). */
static bool proof_check(int fd, bool map, const struct proof *pf, XXH3_state_t **last)
{
	size_t half = hash_threads() >= 2 ? pf->n / 2 : 0;
	/* two threads map half a window each: the resident set grows by
	 * one window, as with one thread */
	size_t win = half ? MAP_WINDOW / 2 : MAP_WINDOW;
	struct piece_check pk[2] = {{fd, map, win, pf, 0, half, NULL, false, NULL, NULL},
				    {fd, map, win, pf, half, pf->n, NULL, false, NULL, NULL}};
	pthread_t t;
	bool started = half > 0 && pthread_create(&t, NULL, piece_check_main, &pk[1]) == 0;
	piece_check_main(&pk[0]);
	if (started)
		pthread_join(t, NULL);
	else
		piece_check_main(&pk[1]);
	if (pk[0].last)
		XXH3_freeState(pk[0].last);
	*last = pk[1].last;
	if (!(pk[0].same && pk[1].same) && pk[1].last) {
		XXH3_freeState(pk[1].last);
		*last = NULL;
	}
	return *last != NULL;
}

/* A proof's check left running beside the build (cache_speculate()):
 * every piece but the last, on one or two threads of their own, over a
 * descriptor of its own (the reader may close its).  The last piece was
 * checked by the read itself: its state is what the read goes on from. */
struct proof_pending {
	int fd;
	char *path; /* the row's, for LOGDOWN_TEST_SAY_PROOF */
	struct proof pf;
	struct piece_check pk[2];
	atomic_size_t take; /* the next piece either thread takes */
	atomic_bool failed;
	pthread_t t[2];
	bool started[2];
	struct proof_pending *next;
};

/* LOGDOWN_TEST_WRITE_SPECULATING=N, for tests only: the byte at N of
 * the first file whose proof is about to be checked beside the build is
 * changed (its low bit flipped) before the check starts, as a writer
 * racing the build would; once a process. */
static void test_write_speculating(int fd)
{
	static atomic_bool done;
	const char *v = test_hook_env("LOGDOWN_TEST_WRITE_SPECULATING");
	if (!v || !*v || atomic_exchange(&done, true))
		return;
	char *at = xasprintf("/proc/self/fd/%d", fd);
	int wfd = open(at, O_WRONLY | O_CLOEXEC);
	free(at);
	off_t off = (off_t)strtoll(v, NULL, 10);
	char b;
	if (wfd < 0 || pread(fd, &b, 1, off) != 1 || (b ^= 1, pwrite(wfd, &b, 1, off) != 1))
		perror("logdown: LOGDOWN_TEST_WRITE_SPECULATING");
	if (wfd >= 0)
		close(wfd);
}

/* proof_check(), left running: every piece but the last on threads of
 * their own, into *pp for proof_join(), and the last one here and now
 * (its state at the end is the one the read goes on from; when it
 * differs, the others are joined and false returned).  *last as
 * proof_check()'s. */
static bool proof_start(int fd, bool map, const struct proof *pf, XXH3_state_t **last,
			struct proof_pending **pp)
{
	*pp = NULL;
	*last = NULL;
	int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (own < 0) /* check it all here, then */
		return proof_check(fd, map, pf, last);
	test_write_speculating(own);
	struct proof_pending *p = xcalloc(1, sizeof *p);
	p->fd = own;
	proof_dup(&p->pf, pf);
	/* the two threads map a quarter of a window each and this one
	 * half of one: the resident set grows by one window, as with one
	 * thread, while the rest of the build runs beside them */
	size_t rest = pf->n - 1, threads = hash_threads() >= 2 && rest >= 2 ? 2 : 1;
	size_t win = MAP_WINDOW / 4;
	atomic_init(&p->take, 0);
	atomic_init(&p->failed, false);
	for (size_t i = 0; i < 2; i++)
		p->pk[i] = (struct piece_check){own, map, win, &p->pf, 0, i < threads ? rest : 0,
						NULL, false, &p->take, &p->failed};
	for (int i = 0; i < 2; i++) {
		if (p->pk[i].k0 == p->pk[i].k1)
			p->pk[i].same = true;
		else if (!(p->started[i] = pthread_create(&p->t[i], NULL, piece_check_main, &p->pk[i]) == 0))
			piece_check_main(&p->pk[i]); /* no thread to be had: here */
	}
	struct piece_check tail = {fd, map, MAP_WINDOW / 2, pf, pf->n - 1, pf->n,
				   NULL, false, NULL, NULL};
	piece_check_main(&tail);
	if (!tail.same) {
		proof_join(p);
		return false;
	}
	*last = tail.last;
	*pp = p;
	return true;
}

/* Waits for p's check and frees p: did every piece hold? */
static bool proof_join(struct proof_pending *p)
{
	bool same = true;
	for (int i = 0; i < 2; i++) {
		if (p->started[i])
			pthread_join(p->t[i], NULL);
		same = same && p->pk[i].same;
		if (p->pk[i].last)
			XXH3_freeState(p->pk[i].last);
	}
	if (getenv("LOGDOWN_TEST_SAY_PROOF"))
		fprintf(stderr, "logdown: test: a proof of %zu pieces %s\n", p->pf.n,
			same ? "held" : "failed");
	close(p->fd);
	proof_free(&p->pf);
	free(p->path);
	free(p);
	return same;
}

void cache_speculate(struct cache *c, bool on)
{
	if (c)
		c->speculate = on;
}

bool cache_proofs_join(struct cache *c)
{
	if (!c)
		return true;
	pthread_mutex_lock(&c->mu);
	struct proof_pending *p = c->proofs;
	c->proofs = NULL;
	pthread_mutex_unlock(&c->mu);
	bool held = true;
	while (p) {
		struct proof_pending *next = p->next;
		held = proof_join(p) && held;
		p = next;
	}
	if (!held)
		c->spec_failed = true;
	return !c->spec_failed;
}

/* The hash of what fd holds, read from its start (pread: its offset
 * stays), doing on the way what hr asks (may be NULL).  The bytes
 * before those whose lines it counts are hashed through a mapping
 * (struct hash_map) when the file is big enough; with a proof of its
 * first bytes (hr->in) that holds, those are not hashed in order at
 * all: their pieces are checked on both cores, and the read goes on
 * from the proof's state at their end. */
static bool hash_fd_read(int fd, struct cache_key *out, struct hash_read *hr)
{
	XXH3_state_t *st = state_dup(NULL);
	char *buf = xmalloc(READ_CHUNK);
	ssize_t n = 0;
	uint64_t at = 0;
	size_t next = 0;
	char before = '\n'; /* the byte before `at` */
	struct hash_map m = {fd, 0, NULL, 0, 0, true, NULL, MAP_WINDOW};
	struct stat fst;
	bool have = fstat(fd, &fst) == 0;
	bool map = have && (uint64_t)fst.st_size >= MAP_MIN && !getenv("LOGDOWN_TEST_NO_MAP") &&
		   map_guard_ready();
	/* A proof for a file of two pieces or more (both cores check it). */
	struct piecer pc = {piece_size(), 0, NULL, NULL, 0, 0, false};
	bool piecing = hr && hr->make && have && (uint64_t)fst.st_size >= 2 * pc.piece;
	if (piecing)
		pc.st = state_dup(NULL);
	if (hr && hr->in.n && have && (uint64_t)fst.st_size >= hr->in.size) {
		/* Every mark before the proof's end needs its state there. */
		const struct proof *pf = &hr->in;
		bool usable = pf->piece == pc.piece && (!hr->count || hr->count_at >= pf->size);
		for (size_t i = 0; i < hr->n; i++)
			usable = usable && (hr->at[i] >= pf->size || proof_state(pf, hr->at[i]));
		const XXH3_state_t *end = proof_state(pf, pf->size);
		if (end) { /* (proof_read() checked it too) */
			struct cache_key k = key_of(XXH3_128bits_digest(end));
			usable = usable && memcmp(k.b, hr->in_hash.b, sizeof k.b) == 0;
		}
		XXH3_state_t *last = NULL;
		char b;
		bool read_end = usable && end && pread(fd, &b, 1, (off_t)(pf->size - 1)) == 1;
		bool held = read_end && (hr->speculate ? proof_start(fd, map, pf, &last, &hr->pending)
						      : proof_check(fd, map, pf, &last));
		if (held) {
			XXH3_copyState(st, end);
			for (; next < hr->n && hr->at[next] < pf->size; next++)
				hr->st[next] = state_dup(proof_state(pf, hr->at[next]));
			at = pf->size;
			before = b;
			hr->proved = true;
			if (piecing) {
				/* the pieces go on from the last one checked */
				XXH3_freeState(pc.st);
				pc.st = last;
				last = NULL;
				pc.at = pf->size;
				pc.n = pc.cap = pf->n - 1;
				pc.done = xmalloc((pc.n ? pc.n : 1) * sizeof *pc.done);
				memcpy(pc.done, pf->pieces, pc.n * sizeof *pc.done);
			}
			/* The rest is read with pread(): the pieces and the
			 * content hash then take the very same bytes. */
			map = false;
		}
		if (last)
			XXH3_freeState(last);
		/* (a check left running says so when joined) */
		if (getenv("LOGDOWN_TEST_SAY_PROOF") && !hr->pending)
			fprintf(stderr, "logdown: test: a proof of %zu pieces %s\n", pf->n,
				hr->proved ? "held" : "failed");
	}
	/* A read that makes a proof through the mapping hashes each chunk
	 * twice where it lies: a write between the two would be missed
	 * unless it moves the file's signature, checked after the read.
	 * A write in the tick of the file's last change may not: such a
	 * file is read into the buffer, both hashes then take one copy. */
	if (piecing && !hr->settled)
		map = false;
	if (map) {
		m.end = hr && hr->count ? hr->count_at : (uint64_t)fst.st_size;
		if (m.end > (uint64_t)fst.st_size)
			m.end = (uint64_t)fst.st_size;
		m.off_now = false;
		m.save = state_dup(NULL);
	}
	for (;;) {
		for (; hr && next < hr->n && hr->at[next] == at; next++) {
			hr->st[next] = state_dup(st);
			if (hr->count && hr->count_at == at) {
				line_count_resume(&hr->lc, hr->old_lines, at, &hr->old_ix, before);
				hr->counted = true;
			}
		}
		size_t mapped = map_span(&m, at);
		if (hr && next < hr->n && hr->at[next] - at < mapped)
			mapped = (size_t)(hr->at[next] - at);
		if (mapped && map_hash(&m, at, mapped, st, &before, piecing ? &pc : NULL)) {
			at += mapped;
			continue;
		}
		size_t want = READ_CHUNK;
		if (hr && next < hr->n && hr->at[next] - at < want)
			want = (size_t)(hr->at[next] - at);
		n = pread(fd, buf, want, (off_t)at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		XXH3_128bits_update(st, buf, (size_t)n);
		if (piecing)
			piecer_feed(&pc, buf, (size_t)n);
		if (hr && hr->counted)
			line_count_feed(&hr->lc, buf, (size_t)n);
		before = buf[n - 1];
		at += (uint64_t)n;
	}
	bool ok = n == 0;
	*out = key_of(XXH3_128bits_digest(st));
	/* The proof of what was read: its pieces, and the content hash's
	 * state at its end and at the marks before it; kept only when the
	 * file did not change while it was read through the mapping. */
	struct stat now;
	if (ok && piecing && !pc.bad && pc.at == at &&
	    (m.save == NULL || (fstat(fd, &now) == 0 && stat_unchanged(&now, &fst)))) {
		piecer_end(&pc, &hr->out);
		for (size_t i = 0; i < hr->n; i++) {
			if (!hr->st[i] || hr->at[i] >= at)
				continue;
			hr->out.at[hr->out.nst] = hr->at[i];
			hr->out.st[hr->out.nst++] = state_dup(hr->st[i]);
		}
		hr->out.at[hr->out.nst] = at;
		hr->out.st[hr->out.nst++] = st;
		st = NULL;
		hr->made = true;
	}
	piecer_free(&pc);
	if (st)
		XXH3_freeState(st);
	map_drop(&m);
	if (m.save)
		XXH3_freeState(m.save);
	free(buf);
	return ok;
}

static bool hash_path_read(const char *path, struct cache_key *out, struct hash_read *hr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool ok = hash_fd_read(fd, out, hr);
	close(fd);
	return ok;
}

static bool hash_file(const char *path, struct cache_key *out)
{
	return hash_path_read(path, out, NULL);
}

/* A file changed less than this before its signature was taken may
 * change again without its times showing it: file systems keep times in
 * ticks (a jiffy on Linux, 2 s on FAT), and two writes in one tick leave
 * the same mtime and ctime (git's "racily clean" files). */
#define RACY_NS 2000000000LL

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool sig_racy(const int64_t sig[5], int64_t taken)
{
	return sig[1] > taken - RACY_NS || sig[4] > taken - RACY_NS;
}

/* Was a file of signature sig, seen at `taken`, last changed more than
 * a tick of its file system's clock before (20 ms; 2 s where its times
 * have no nanoseconds)? */
static bool sig_settled_at(const int64_t sig[5], int64_t taken)
{
	bool coarse = sig[1] % 1000000000 == 0 && sig[4] % 1000000000 == 0;
	int64_t tick = coarse ? RACY_NS : 20000000LL, newest = sig[1] > sig[4] ? sig[1] : sig[4];
	return taken - newest > tick;
}

bool cache_file_hash(struct cache *c, const char *path, struct cache_key *out)
{
	return cache_file_hash_stamped(c, path, out, NULL);
}

bool cache_file_hash_stamped(struct cache *c, const char *path, struct cache_key *out,
			     struct cache_stamp *stamp)
{
	return cache_fd_hash_stamped(c, path, -1, out, stamp);
}

bool cache_fd_hash_stamped(struct cache *c, const char *path, int fd, struct cache_key *out,
			   struct cache_stamp *stamp)
{
	return cache_fd_hash_mid(c, path, fd, out, stamp, 0, NULL, NULL);
}

/* A copy of ix's starts (caller frees). */
static off_t *starts_dup(const struct line_index *ix)
{
	off_t *starts = xmalloc(ix->n * sizeof *starts);
	memcpy(starts, ix->starts, ix->n * sizeof *starts);
	return starts;
}

static struct file_entry *row_with_sig(struct cache *c, const char *name, const int64_t sig[5]);
static void set_row(struct cache *c, const char *row, const int64_t sig[5],
		    const struct cache_key *hash);

/* The files table's row for the hash of a file's first `at` bytes, as
 * a read that was not racy took it: valid while the file (path) has
 * the row's signature, as the file's own hash is.  A name no real path
 * has. */
static char *prefix_row(const char *path, uint64_t at)
{
	return xasprintf("prefix %llu %s", (unsigned long long)at, path);
}

/* The hash of the first `at` bytes of path's file, of signature sig,
 * from a prefix row (prefix_row()), marked used; false when there is
 * none for that signature.  Under c->mu. */
static bool prefix_of_row(struct cache *c, const char *path, const int64_t sig[5], uint64_t at,
			  struct cache_key *out)
{
	char *name = prefix_row(path, at);
	struct file_entry *e = row_with_sig(c, name, sig);
	free(name);
	if (!e || e->racy)
		return false;
	*out = e->hash;
	e->used = true;
	return true;
}

/* The state kept at `at` by this build's read of e's file, or NULL.
 * Under c->mu. */
static const XXH3_state_t *entry_mark(const struct file_entry *e, uint64_t at)
{
	for (size_t i = 0; i < e->nmarks; i++)
		if (e->marks[i].at == at)
			return e->marks[i].st;
	return NULL;
}

/* What a read of path took (hr: its marks, its proof, its count; *out:
 * the content hash of the signature sig, seen at `taken`), put on
 * path's row; grew: its first was_size bytes hashed as *was_hash, the
 * row's content before. */
static void row_took(struct cache *c, const char *path, const int64_t sig[5], int64_t taken,
		     bool racy, struct hash_read *hr, const struct cache_key *out, bool grew,
		     uint64_t was_size, const struct cache_key *was_hash)
{
	pthread_mutex_lock(&c->mu);
	struct file_entry *e = find_file(c, path);
	if (!e)
		e = add_file(c, path);
	entry_drop_read(e);
	if (grew && hr->counted) {
		/* the lines of the bytes it had, and those of the new ones,
		 * counted in this read: the content of *out */
		entry_drop_lines(e);
		e->lines = line_count_lines(&hr->lc);
		e->bytes = hr->lc.total;
		e->ix = hr->lc.ix;
		hr->counted = false; /* the row's now */
	} else if (memcmp(e->hash.b, out->b, sizeof out->b) != 0) {
		entry_drop_lines(e);
	}
	memcpy(e->sig, sig, sizeof e->sig);
	e->hash = *out;
	e->used = true;
	/* A racy file's row does not outlive the build as a signature: the
	 * next build hashes the file again rather than trust one that may
	 * not have moved. */
	e->racy = racy;
	e->read_settled = racy && sig_settled_at(sig, taken);
	for (size_t i = 0; i < hr->n; i++)
		if (hr->st[i]) {
			e->marks[e->nmarks++] = (struct mark){hr->at[i], hr->st[i]};
			hr->st[i] = NULL;
		}
	e->grew = grew;
	e->grew_size = was_size;
	e->grew_hash = *was_hash;
	proof_free(&e->pf);
	if (hr->made) {
		e->pf = hr->out;
		memset(&hr->out, 0, sizeof hr->out);
	}
	/* all of the above rests on it: joined before anything is kept */
	if (hr->pending) {
		hr->pending->path = xstrdup(path);
		hr->pending->next = c->proofs;
		c->proofs = hr->pending;
		hr->pending = NULL;
	}
	pthread_mutex_unlock(&c->mu);
}

bool cache_fd_hash_mid(struct cache *c, const char *path, int fd, struct cache_key *out,
		       struct cache_stamp *stamp, uint64_t mid, struct cache_key *prefix,
		       bool *prefix_ok)
{
	if (prefix_ok)
		*prefix_ok = false;
	int64_t sig[5];
	int64_t taken = now_ns();
	struct stat fst;
	if (fd >= 0 && fstat(fd, &fst) == 0)
		sig_of(&fst, sig);
	else if (fd >= 0 || !stat_sig(path, sig))
		return false;
	bool racy = sig_racy(sig, taken);
	if (stamp) {
		memcpy(stamp->sig, sig, sizeof sig);
		stamp->racy = racy;
	}
	struct hash_read hr;
	memset(&hr, 0, sizeof hr);
	if (prefix && mid > 0 && (uint64_t)sig[0] >= mid)
		hash_read_mark(&hr, mid);
	hr.make = c != NULL;
	hr.settled = sig_settled_at(sig, taken);
	bool ok;
	if (!c) { /* --no-cache: the same hash, not kept */
		ok = fd >= 0 ? hash_fd_read(fd, out, &hr) : hash_path_read(path, out, &hr);
		if (ok && prefix)
			*prefix_ok = hash_read_digest(&hr, mid, prefix);
		hash_read_free(&hr);
		return ok;
	}
	pthread_mutex_lock(&c->mu);
	struct file_entry *e = find_file(c, path);
	/* A row this build took of a racy file has its real signature, in
	 * memory: the later steps of the same build use it (each checks
	 * again, after its own read, what it relies on). */
	bool hit = e && memcmp(e->sig, sig, sizeof sig) == 0;
	if (hit) {
		*out = e->hash;
		e->used = true;
		const XXH3_state_t *m = prefix ? entry_mark(e, mid) : NULL;
		if (m) {
			*prefix = key_of(XXH3_128bits_digest(m));
			*prefix_ok = true;
		} else if (prefix && mid > 0 && !e->racy) {
			*prefix_ok = prefix_of_row(c, path, sig, mid, prefix);
		}
	}
	/* The file as the row knew it, when it was shorter: the read checks
	 * whether it still starts with those bytes (a log that only grew),
	 * and counts only the lines after them. */
	bool was = !hit && e && e->sig[0] > 0 && e->sig[0] < sig[0];
	struct cache_key was_hash = {{0}};
	if (was) {
		was_hash = e->hash;
		hash_read_mark(&hr, (uint64_t)e->sig[0]);
		/* its proof: the bytes it had, checked on both cores */
		if (e->pf.n && e->pf.size == (uint64_t)e->sig[0]) {
			proof_dup(&hr.in, &e->pf);
			hr.in_hash = e->hash;
		}
		if (e->ix.n && e->bytes == (unsigned long long)e->sig[0]) {
			hr.count = true;
			hr.count_at = (uint64_t)e->sig[0];
			hr.old_lines = e->lines;
			hr.old_ix = (struct line_index){e->ix.every, starts_dup(&e->ix), e->ix.n};
		}
	}
	/* A file of the size its row had, whose signature no longer matches
	 * (a racy row: a prose edit saved right after an append's build),
	 * is read again: its proof checks its bytes instead. */
	if (!hit && !was && e && e->pf.n && e->sig[0] == sig[0] &&
	    e->pf.size == (uint64_t)sig[0]) {
		proof_dup(&hr.in, &e->pf);
		hr.in_hash = e->hash;
	}
	uint64_t was_size = was ? (uint64_t)e->sig[0] : 0;
	hr.speculate = c->speculate;
	pthread_mutex_unlock(&c->mu);
	if (hit)
		return true;
	/* The signature is taken before reading: a change while the file is
	 * read leaves a signature that no longer matches next time. */
	ok = fd >= 0 ? hash_fd_read(fd, out, &hr) : hash_path_read(path, out, &hr);
	if (!ok) {
		hash_read_free(&hr);
		return false;
	}
	if (prefix)
		*prefix_ok = hash_read_digest(&hr, mid, prefix);
	struct cache_key head;
	bool grew = was && hash_read_digest(&hr, was_size, &head) &&
		    memcmp(head.b, was_hash.b, sizeof head.b) == 0;
	row_took(c, path, sig, taken, racy, &hr, out, grew, was_size, &was_hash);
	hash_read_free(&hr);
	/* A later build that finds the file unchanged (this signature, not
	 * racy: its hash is trusted then) trusts this one as well: a prose
	 * edit after an append resumes without reading the log. */
	if (prefix && *prefix_ok && !racy) {
		char *name = prefix_row(path, mid);
		set_row(c, name, sig, prefix);
		free(name);
	}
	return true;
}

/* --- a file read whole by another reader (the parse), its bytes
 * handed over as they come --- */

/* Files under this size are hashed apart, as before: the hash's own
 * read of a small file costs nothing beside its parse.
 * LOGDOWN_TEST_WHOLE_MIN (bytes, tests only) sets it. */
static uint64_t whole_min(void)
{
	const char *v = getenv("LOGDOWN_TEST_WHOLE_MIN");
	long long n = v && *v ? strtoll(v, NULL, 10) : -1;
	return n >= 0 ? (uint64_t)n : (uint64_t)8 << 20;
}

/* Is a file of signature sig, whose row is e, one whose content the
 * cache cannot know (no stored run can be keyed by it), so that its hash
 * needs no read of its own before its parse?  So it is without a row (a
 * new log) and when its row had more bytes than it has now (cut short,
 * or rewritten); not when the row had fewer (a log that grew: the row's
 * proof checks its first bytes) or as many (this very content, touched
 * or checked out again, may be stored).  Under c->mu. */
static bool row_reads_whole(const struct file_entry *e, const int64_t sig[5])
{
	return !e || e->sig[0] > sig[0];
}

static bool reads_whole(struct cache *c, const char *path, const int64_t sig[5])
{
	if ((uint64_t)sig[0] < whole_min() || sig[0] == 0)
		return false;
	pthread_mutex_lock(&c->mu);
	bool whole = row_reads_whole(find_file(c, path), sig);
	pthread_mutex_unlock(&c->mu);
	return whole;
}

bool cache_reads_whole(struct cache *c, const char *path)
{
	int64_t sig[5];
	return c && stat_sig(path, sig) && reads_whole(c, path, sig);
}

struct cache_read {
	struct cache *c;
	char *path;
	int fd;
	struct stat fst; /* when it began */
	int64_t sig[5];
	int64_t taken;
	bool racy;
	XXH3_state_t *st; /* the content hash */
	bool piecing;     /* and a proof's pieces (hash_fd_read()) */
	struct piecer pc;
	uint64_t fed;
	/* LOGDOWN_TEST_WRITE_WHILE_READ, for tests only
	 * (tests/e2e/test_appends.c): "N:OFF:C" writes the byte C at OFF
	 * of the file once N bytes were read, the read going on: a log
	 * changed as its parse reads it */
	long long test_at, test_off;
	char test_byte;
};

static void test_write_while_read(struct cache_read *rd)
{
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", rd->fd);
	int w = open(self, O_WRONLY | O_CLOEXEC);
	if (w < 0 || pwrite(w, &rd->test_byte, 1, (off_t)rd->test_off) != 1)
		perror("logdown: LOGDOWN_TEST_WRITE_WHILE_READ");
	if (w >= 0)
		close(w);
	rd->test_at = -1;
}

struct cache_read *cache_fd_read_begin(struct cache *c, const char *path, int fd,
				       struct cache_stamp *stamp)
{
	struct stat fst;
	if (!c || fd < 0 || fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode))
		return NULL;
	int64_t sig[5];
	sig_of(&fst, sig);
	int64_t taken = now_ns();
	if (!reads_whole(c, path, sig))
		return NULL;
	struct cache_read *rd = xcalloc(1, sizeof *rd);
	rd->c = c;
	rd->path = xstrdup(path);
	rd->fd = fd;
	rd->fst = fst;
	memcpy(rd->sig, sig, sizeof sig);
	rd->taken = taken;
	rd->racy = sig_racy(sig, taken);
	rd->st = state_dup(NULL);
	rd->pc = (struct piecer){piece_size(), 0, NULL, NULL, 0, 0, false};
	rd->piecing = (uint64_t)fst.st_size >= 2 * rd->pc.piece;
	if (rd->piecing)
		rd->pc.st = state_dup(NULL);
	memcpy(stamp->sig, sig, sizeof sig);
	stamp->racy = rd->racy;
	const char *t = test_hook_env("LOGDOWN_TEST_WRITE_WHILE_READ");
	if (!t || sscanf(t, "%lld:%lld:%c", &rd->test_at, &rd->test_off, &rd->test_byte) != 3)
		rd->test_at = -1;
	return rd;
}

void cache_read_feed(void *ctx, const void *p, size_t n)
{
	struct cache_read *rd = ctx;
	XXH3_128bits_update(rd->st, p, n);
	if (rd->piecing)
		piecer_feed(&rd->pc, p, n);
	rd->fed += n;
	if (rd->test_at >= 0 && rd->fed >= (uint64_t)rd->test_at)
		test_write_while_read(rd);
}

bool cache_read_end(struct cache_read *rd, struct cache_key *out)
{
	if (!rd)
		return false;
	struct stat now;
	bool whole = rd->fed == (uint64_t)rd->sig[0] && fstat(rd->fd, &now) == 0 &&
		     stat_unchanged(&now, &rd->fst);
	if (whole) {
		*out = key_of(XXH3_128bits_digest(rd->st));
		struct hash_read hr;
		memset(&hr, 0, sizeof hr);
		if (rd->piecing && !rd->pc.bad && rd->pc.at == rd->fed) {
			/* the proof of what was read, as hash_fd_read() makes it */
			piecer_end(&rd->pc, &hr.out);
			hr.out.at[0] = rd->fed;
			hr.out.st[0] = rd->st;
			hr.out.nst = 1;
			rd->st = NULL;
			hr.made = true;
		}
		static const struct cache_key none;
		row_took(rd->c, rd->path, rd->sig, rd->taken, rd->racy, &hr, out, false, 0, &none);
		hash_read_free(&hr);
	}
	cache_read_drop(rd);
	return whole;
}

void cache_read_drop(struct cache_read *rd)
{
	if (!rd)
		return;
	piecer_free(&rd->pc);
	if (rd->st)
		XXH3_freeState(rd->st);
	free(rd->path);
	free(rd);
}

bool cache_fd_prefix_known(struct cache *c, const char *path, int fd, uint64_t at,
			   struct cache_key *out)
{
	struct stat st;
	if (!c || fstat(fd, &st) != 0)
		return false;
	int64_t sig[5];
	sig_of(&st, sig);
	pthread_mutex_lock(&c->mu);
	bool known = prefix_of_row(c, path, sig, at, out);
	pthread_mutex_unlock(&c->mu);
	return known;
}

/* The row named name when it has the signature sig; else NULL.  Under
 * c->mu. */
static struct file_entry *row_with_sig(struct cache *c, const char *name, const int64_t sig[5])
{
	struct file_entry *e = find_file(c, name);
	return e && memcmp(e->sig, sig, 5 * sizeof *sig) == 0 ? e : NULL;
}

/* The row of path whose signature is the file open at fd's now; NULL
 * otherwise.  Under c->mu. */
static struct file_entry *row_of_fd(struct cache *c, const char *path, int fd)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return NULL;
	int64_t sig[5];
	sig_of(&st, sig);
	return row_with_sig(c, path, sig);
}

/* Sets the row named row (made if need be) to sig and hash, used, with
 * no lines counted; takes c->mu. */
static void set_row(struct cache *c, const char *row, const int64_t sig[5],
		    const struct cache_key *hash)
{
	pthread_mutex_lock(&c->mu);
	struct file_entry *e = find_file(c, row);
	if (!e)
		e = add_file(c, row);
	entry_drop_lines(e);
	entry_drop_read(e);
	proof_free(&e->pf);
	memcpy(e->sig, sig, 5 * sizeof *sig);
	e->hash = *hash;
	e->used = true;
	e->racy = false;
	pthread_mutex_unlock(&c->mu);
}

/* When the times of a file (st, its signature sig) are older than a
 * tick of its file system's clock (20 ms; 2 s where times have no
 * nanoseconds), so that a write after that moment moves them: into
 * *due; false when that is a coarse tick not yet past (not waited for). */
static bool tick_due(const struct stat *st, const int64_t sig[5], int64_t *due)
{
	bool coarse = st->st_mtim.tv_nsec == 0 && st->st_ctim.tv_nsec == 0;
	int64_t tick = coarse ? RACY_NS : 20000000LL, newest = sig[1] > sig[4] ? sig[1] : sig[4];
	*due = newest + tick;
	return !coarse || *due <= now_ns();
}

static void sleep_until(int64_t due)
{
	/* (a signal, a child's end, cuts a sleep short: until due) */
	for (int64_t wait; (wait = due - now_ns()) > 0;) {
		struct timespec ts = {wait / 1000000000, (long)(wait % 1000000000)};
		nanosleep(&ts, NULL);
	}
}

/* Are the times of a file settled (tick_due())?  A file written a
 * moment ago on a fine clock is waited for (20 ms at most). */
static bool settled(const struct stat *st, const int64_t sig[5])
{
	int64_t due;
	if (!tick_due(st, sig, &due))
		return false;
	sleep_until(due);
	return true;
}

/* The files table's row for a file of the output: a name no real path
 * has. */
static char *output_row(const char *final, const char *rel)
{
	return xasprintf("output %s/%s", final, rel);
}

bool cache_output_note(struct cache *c, const char *final, const char *rel,
		       const struct stat *st, const struct cache_key *content)
{
	if (!c || !S_ISREG(st->st_mode) || st->st_nlink != 1)
		return false;
	int64_t sig[5];
	sig_of(st, sig);
	int64_t due;
	if (!tick_due(st, sig, &due))
		return false;
	char *row = output_row(final, rel);
	set_row(c, row, sig, content);
	free(row);
	/* The row is trusted from when the files table is written: the
	 * wait for the tick is left to cache_close(), just before, where
	 * the build's last steps have mostly spent it (a raw copy appended
	 * to at the commit waited 20 ms here, doing nothing). */
	pthread_mutex_lock(&c->mu);
	if (due > c->settle_due)
		c->settle_due = due;
	pthread_mutex_unlock(&c->mu);
	return true;
}

bool cache_output_known(struct cache *c, const char *final, const char *rel,
			const struct stat *st, const struct cache_key *content)
{
	if (!c || !S_ISREG(st->st_mode) || st->st_nlink != 1)
		return false;
	int64_t sig[5];
	sig_of(st, sig);
	char *row = output_row(final, rel);
	pthread_mutex_lock(&c->mu);
	struct file_entry *e = row_with_sig(c, row, sig);
	bool known = e && memcmp(e->hash.b, content->b, sizeof e->hash.b) == 0;
	pthread_mutex_unlock(&c->mu);
	free(row);
	return known;
}

bool cache_fd_hash_known(struct cache *c, const char *path, int fd, struct cache_key *out)
{
	if (!c)
		return false;
	pthread_mutex_lock(&c->mu);
	struct file_entry *e = row_of_fd(c, path, fd);
	bool known = e && !e->racy;
	if (known)
		*out = e->hash;
	pthread_mutex_unlock(&c->mu);
	return known;
}

bool cache_fd_hash_read(struct cache *c, const char *path, int fd, struct cache_key *out)
{
	if (!c)
		return false;
	pthread_mutex_lock(&c->mu);
	struct file_entry *e = row_of_fd(c, path, fd);
	if (e)
		*out = e->hash;
	pthread_mutex_unlock(&c->mu);
	return e != NULL;
}

bool cache_fd_racy_still(struct cache *c, const char *path, struct cache_key *out)
{
	if (!c)
		return false;
	int64_t sig[5];
	if (!stat_sig(path, sig))
		return false;
	pthread_mutex_lock(&c->mu);
	struct file_entry *e = row_with_sig(c, path, sig);
	bool still = e && e->racy && e->read_settled;
	if (still)
		*out = e->hash;
	pthread_mutex_unlock(&c->mu);
	return still;
}

struct cache_hasher *cache_fd_hasher_at(struct cache *c, const char *path, int fd, uint64_t at)
{
	if (!c)
		return NULL;
	struct cache_hasher *h = NULL;
	pthread_mutex_lock(&c->mu);
	struct file_entry *e = row_of_fd(c, path, fd);
	const XXH3_state_t *m = e ? entry_mark(e, at) : NULL;
	if (m) {
		h = cache_hasher_plain();
		XXH3_copyState(h->st, m);
	}
	pthread_mutex_unlock(&c->mu);
	return h;
}

bool cache_fd_grew(struct cache *c, const char *path, int fd, uint64_t *old_size,
		   struct cache_key *old_hash, struct cache_key *hash)
{
	if (!c)
		return false;
	pthread_mutex_lock(&c->mu);
	struct file_entry *e = row_of_fd(c, path, fd);
	bool grew = e && e->grew && entry_mark(e, e->grew_size);
	if (grew) {
		*old_size = e->grew_size;
		*old_hash = e->grew_hash;
		*hash = e->hash;
	}
	pthread_mutex_unlock(&c->mu);
	return grew;
}

static bool cache_fd_lines_known(struct cache *c, const char *path, int fd, long *lines,
				 unsigned long long *bytes, struct line_index *ix)
{
	if (!c)
		return false;
	pthread_mutex_lock(&c->mu);
	struct file_entry *e = row_of_fd(c, path, fd);
	/* (a racy row's lines are only those its hash's read counted) */
	bool known = e && e->ix.n && e->ix.every == ix->every &&
		     e->bytes == (unsigned long long)e->sig[0];
	if (known) {
		*lines = e->lines;
		*bytes = e->bytes;
		ix->n = e->ix.n;
		ix->starts = starts_dup(&e->ix);
		e->used = true;
	}
	pthread_mutex_unlock(&c->mu);
	return known;
}

/* Remembers a count on the row of the file open at fd (nothing when
 * the row is not the file's).  A racy row's only when `checked`: the
 * bytes counted hash as the row's (a write in the tick of its
 * signature, between its hash and the count, would leave lines of
 * other bytes). */
void cache_fd_lines_note(struct cache *c, const char *path, int fd, long lines,
			 unsigned long long bytes, const struct line_index *ix,
			 const struct cache_key *checked)
{
	if (!c || !ix->n)
		return;
	pthread_mutex_lock(&c->mu);
	struct file_entry *e = row_of_fd(c, path, fd);
	if (e && (!e->racy || (checked && memcmp(checked->b, e->hash.b, sizeof e->hash.b) == 0))) {
		entry_drop_lines(e);
		e->lines = lines;
		e->bytes = bytes;
		e->ix = (struct line_index){ix->every, starts_dup(ix), ix->n};
	}
	pthread_mutex_unlock(&c->mu);
}

bool cache_file_unchanged(const char *path, const struct cache_stamp *stamp,
			  const struct cache_key *hash)
{
	int64_t sig[5];
	if (!stat_sig(path, sig) || memcmp(sig, stamp->sig, sizeof sig) != 0)
		return false;
	if (!stamp->racy)
		return true; /* any write since would have moved its times */
	struct cache_key now;
	return hash_file(path, &now) && memcmp(now.b, hash->b, sizeof now.b) == 0;
}

bool cache_fd_lines_count(struct cache *c, const char *path, int fd, char *buf, size_t cap,
			  long *lines, unsigned long long *bytes, struct line_index *ix)
{
	if (cache_fd_lines_known(c, path, fd, lines, bytes, ix))
		return true;
	/* a racy row's count is checked against its hash, in the same read */
	bool racy = false;
	if (c) {
		pthread_mutex_lock(&c->mu);
		struct file_entry *e = row_of_fd(c, path, fd);
		racy = e && e->racy;
		pthread_mutex_unlock(&c->mu);
	}
	struct cache_hasher *h = racy ? cache_hasher_plain() : NULL;
	struct line_count lc;
	line_count_start(&lc, ix->every);
	for (;;) {
		ssize_t got = read(fd, buf, cap);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;
			free(lc.ix.starts);
			if (h)
				cache_hasher_end(h);
			errno = e;
			return false;
		}
		if (got == 0)
			break;
		line_count_feed(&lc, buf, (size_t)got);
		if (h)
			XXH3_128bits_update(h->st, buf, (size_t)got);
	}
	*lines = line_count_lines(&lc);
	*bytes = lc.total;
	*ix = lc.ix;
	struct cache_key read_hash;
	if (h)
		read_hash = cache_hasher_end(h);
	cache_fd_lines_note(c, path, fd, *lines, *bytes, ix, h ? &read_hash : NULL);
	return true;
}

bool cache_fd_unchanged_from(struct cache *c, const char *path, int fd,
			     const struct cache_stamp *stamp, const struct cache_key *hash,
			     uint64_t from)
{
	int64_t sig[5];
	if (!stat_sig(path, sig) || memcmp(sig, stamp->sig, sizeof sig) != 0)
		return false;
	if (!stamp->racy)
		return true;
	struct cache_hasher *h = cache_fd_hasher_at(c, path, fd, from);
	if (!h)
		return cache_file_unchanged(path, stamp, hash);
	/* the bytes from `from` on, read again, go on from the state the
	 * hash's read had there */
	char *buf = xmalloc(READ_CHUNK);
	uint64_t at = from;
	ssize_t n;
	for (;;) {
		n = pread(fd, buf, READ_CHUNK, (off_t)at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		XXH3_128bits_update(h->st, buf, (size_t)n);
		at += (uint64_t)n;
	}
	free(buf);
	struct cache_key now = cache_hasher_end(h);
	return n == 0 && memcmp(now.b, hash->b, sizeof now.b) == 0;
}

struct cache_key cache_hash_bytes(const void *p, size_t n)
{
	return key_of(XXH3_128bits(p, n));
}

void cache_key_text(const struct cache_key *k, char out[CACHE_KEY_TEXT])
{
	memcpy(out, "xxh3-128:", 9);
	key_hex(k, out + 9);
}

/* --- runs --- */

/* A run's file name in the runs folder: "<32 hex digits>.run". */
static void run_name_of(const struct cache_key *key, char out[40])
{
	key_hex(key, out);
	memcpy(out + 32, ".run", 5);
}

static char *run_path(const struct cache *c, const struct cache_key *key)
{
	char hex[33];
	key_hex(key, hex);
	return xasprintf("%s/runs/%s.run", c->dir, hex);
}

struct run *cache_run_get(struct cache *c, const struct cache_key *key)
{
	seal_wait(c, key);
	char name[40];
	run_name_of(key, name);
	struct run *run = NULL;
	pthread_mutex_lock(&c->mu); /* ensure_dir() may be opening it */
	int rfd = c->rfd;
	pthread_mutex_unlock(&c->mu);
	/* As read_at() opens a file, but the run is mapped, not read. */
	int fd = rfd >= 0 ? openat(rfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) : -1;
	struct stat st;
	const char *why = NULL;
	if (fd < 0) {
		why = read_problem(rfd >= 0 ? errno : ENOENT);
	} else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		why = read_problem(EINVAL);
	} else {
		/* A store whose seal this user checked before, and which is
		 * still the same file (inode, size, modify and change times:
		 * no write, rename or copy since leaves them all), is not read
		 * whole again: the memo is a row of the sealed files table,
		 * under a name no real path has.  The digest of a big store's
		 * body costs a third of a second a GB. */
		int64_t sig[5];
		int64_t taken = now_ns();
		sig_of(&st, sig);
		char *memo = xasprintf("run store %s", name);
		pthread_mutex_lock(&c->mu);
		bool known = row_with_sig(c, memo, sig) != NULL;
		pthread_mutex_unlock(&c->mu);
		enum runstore_verdict v;
		run = runstore_map(fd, (size_t)st.st_size, &c->key, key, known, &v);
		static const struct cache_key none;
		if (run && (known || !sig_racy(sig, taken)))
			set_row(c, memo, sig, &none);
		free(memo);
		why = v == RUNSTORE_OK		   ? NULL
		      : v == RUNSTORE_OTHER_VERSION ? "from another version of logdown"
		      : v == RUNSTORE_UNREADABLE    ? "unreadable"
		      : v == RUNSTORE_OTHER_KEY     ? verdict_why(FILE_OTHER_KEY)
		      : v == RUNSTORE_FORGED	   ? verdict_why(FILE_FORGED)
						    : verdict_why(FILE_DAMAGED);
	}
	if (fd >= 0)
		close(fd);
	if (why) {
		char *path = run_path(c, key);
		warn_damaged(c, path, why);
		free(path);
		if (c->writable)
			unlinkat(rfd, name, 0); /* the entry itself, a link too */
	}
	if (run)
		cache_run_keep(c, key);
	return run;
}

/* The store at name, renamed into place: remembered with its signature
 * for note_written(). */
static void written_add(struct cache *c, const char *name)
{
	struct stat st;
	if (fstatat(c->rfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
		return;
	pthread_mutex_lock(&c->mu);
	if (c->nwritten == c->written_cap) {
		c->written_cap = c->written_cap ? 2 * c->written_cap : 8;
		c->written = xrealloc(c->written, c->written_cap * sizeof *c->written);
	}
	struct written *w = &c->written[c->nwritten++];
	memcpy(w->name, name, sizeof w->name);
	sig_of(&st, w->sig);
	pthread_mutex_unlock(&c->mu);
}

/* A store whose body is written, sealed and renamed into place on a
 * thread of its own while the build reads the run from it. */
struct pending_seal {
	struct cache *c;
	int fd;
	char *tmp;
	char name[40];
	struct cache_key key;
	struct runstore_body body;
	pthread_t thread;
	bool done; /* sealed and renamed into place, or given up: c->mu */
};

static void *seal_main(void *arg)
{
	struct pending_seal *ps = arg;
	struct cache *c = ps->c;
	bool ok = runstore_seal(ps->fd, &c->key, &ps->key, &ps->body);
	if (tmp_commit(c->rfd, ps->fd, ps->tmp, ps->name, ok))
		written_add(c, ps->name);
	pthread_mutex_lock(&c->mu);
	ps->done = true;
	pthread_cond_broadcast(&c->sealed);
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* Waits for the seals run_put() left running. */
static void seals_join(struct cache *c)
{
	pthread_mutex_lock(&c->mu);
	struct pending_seal **p = c->pending;
	size_t n = c->npending;
	c->pending = NULL;
	c->npending = c->pending_cap = 0;
	pthread_mutex_unlock(&c->mu);
	for (size_t i = 0; i < n; i++) {
		pthread_join(p[i]->thread, NULL);
		free(p[i]);
	}
	free(p);
}

/* Waits for the seal of key's store when run_put() left it running:
 * a report on another thread that reads the same run from the store
 * then finds it in place.  The seal stays listed for seals_join(), so
 * that every thread reading the key waits for it, not only the first
 * (a second reader that found the list without it would look for the
 * file before its rename and parse the log again). */
static void seal_wait(struct cache *c, const struct cache_key *key)
{
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < c->npending; i++) {
		struct pending_seal *ps = c->pending[i];
		if (memcmp(ps->key.b, key->b, sizeof key->b) != 0)
			continue;
		while (!ps->done)
			pthread_cond_wait(&c->sealed, &c->mu);
	}
	pthread_mutex_unlock(&c->mu);
}

/* Stores r under key; with want_map, the run as stored, read from the
 * file just written (below), or NULL.  With want_map and a second
 * thread allowed (runstore_threaded()), the seal's digest (a read of
 * the whole body: 0.2 s for the 1 GB log's 231 MB store, half a
 * second for its 567 MB of format 1)
 * is taken on a thread of its own while the build reads the run from
 * the body already written, and the store is renamed into place when
 * it is sealed; the cache waits for it before it is pruned or closed. */
static struct run *run_put(struct cache *c, const struct cache_key *key, const struct run *r,
			   bool want_map)
{
	if (!ensure_dir(c))
		return NULL;
	cache_run_keep(c, key);
	char name[40];
	run_name_of(key, name);
	char *tmp;
	int fd = tmp_create(c->rfd, name, &tmp);
	if (fd < 0)
		return NULL;
	/* The file written, opened again for reading through its
	 * descriptor: the very inode this build wrote and sealed, whatever
	 * its name leads to later, so that its body's digest need not be
	 * taken again to trust it. */
	int rd = -1;
	if (want_map) {
		char via[48];
		snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
		rd = open(via, O_RDONLY | O_CLOEXEC);
	}
	if (rd >= 0 && runstore_threaded()) {
		struct pending_seal *ps = xcalloc(1, sizeof *ps);
		if (!runstore_write_body(fd, r, &ps->body)) {
			free(ps);
			close(rd);
			tmp_commit(c->rfd, fd, tmp, name, false);
			return NULL;
		}
		/* the body is this build's own bytes: read as written */
		struct run *m = runstore_map_written(rd, key, &ps->body);
		close(rd);
		ps->c = c;
		ps->fd = fd;
		ps->tmp = tmp;
		memcpy(ps->name, name, sizeof ps->name);
		ps->key = *key;
		if (pthread_create(&ps->thread, NULL, seal_main, ps) != 0) {
			seal_main(ps);
			free(ps);
			return m;
		}
		pthread_mutex_lock(&c->mu);
		if (c->npending == c->pending_cap) {
			c->pending_cap = c->pending_cap ? 2 * c->pending_cap : 4;
			c->pending = xrealloc(c->pending, c->pending_cap * sizeof *c->pending);
		}
		c->pending[c->npending++] = ps;
		pthread_mutex_unlock(&c->mu);
		return m;
	}
	/* written as it is encoded: a big run never sits in memory twice */
	bool ok = tmp_commit(c->rfd, fd, tmp, name, runstore_write(fd, &c->key, key, r));
	struct stat st;
	if (!ok || fstatat(c->rfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
		if (rd >= 0)
			close(rd);
		return NULL;
	}
	written_add(c, name);
	struct run *m = NULL;
	struct stat rst;
	if (rd >= 0 && fstat(rd, &rst) == 0 && S_ISREG(rst.st_mode)) {
		enum runstore_verdict v;
		m = runstore_map(rd, (size_t)rst.st_size, &c->key, key, true, &v);
	}
	if (rd >= 0)
		close(rd);
	return m;
}

void cache_run_put(struct cache *c, const struct cache_key *key, const struct run *r)
{
	run_put(c, key, r, false);
}

struct run *cache_run_put_mapped(struct cache *c, const struct cache_key *key,
				 const struct run *r)
{
	return run_put(c, key, r, true);
}

/* A store this build wrote was sealed with the digest of what it wrote:
 * the next build need not take that digest again to trust it (the memo
 * of cache_run_get(), which a first build's store would otherwise only
 * get from the build after next: 0.45 s of CPU and a second for the
 * 1 GB log's).  Noted only when the file is still the one renamed into
 * place (the same inode, size and times) and those times are older than
 * a tick of the clock (settled()), so that any write since moves them. */
static void note_written(struct cache *c)
{
	static const struct cache_key none;
	for (size_t i = 0; i < c->nwritten; i++) {
		const struct written *w = &c->written[i];
		struct stat st;
		int64_t sig[5];
		if (c->rfd < 0 || fstatat(c->rfd, w->name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		sig_of(&st, sig);
		if (memcmp(sig, w->sig, sizeof sig) != 0 || !settled(&st, sig))
			continue;
		char *memo = xasprintf("run store %s", w->name);
		set_row(c, memo, sig, &none);
		free(memo);
	}
	free(c->written);
	c->written = NULL;
	c->nwritten = c->written_cap = 0;
}

/* --- resume states (appends: parse/scanstate.c) --- */

bool cache_state_get(struct cache *c, const struct cache_key *key, struct buf *out)
{
	if (!c)
		return false;
	char name[48];
	key_hex(key, name);
	memcpy(name + 32, ".scan", 6);
	pthread_mutex_lock(&c->mu);
	int rfd = c->rfd;
	pthread_mutex_unlock(&c->mu);
	struct buf b = BUF_INIT;
	const char *why = NULL;
	bool ok = false;
	if (!read_at(rfd, name, &b)) {
		why = read_problem(rfd >= 0 ? errno : ENOENT);
	} else {
		struct wire_rd r;
		enum verdict v = cache_open_sealed(&c->key, b.data, b.len, KIND_STATE, &r);
		struct span body = v == FILE_OK ? wire_span(&r) : (struct span){"", 0};
		if (v == FILE_OK && !r.bad && r.p == r.end) {
			buf_put(out, body.p, body.len);
			ok = true;
		} else {
			why = verdict_why(v == FILE_OK ? FILE_DAMAGED : v);
		}
	}
	buf_free(&b);
	if (why) {
		char *path = xasprintf("%s/runs/%s", c->dir, name);
		warn_damaged(c, path, why);
		free(path);
		if (c->writable)
			unlinkat(rfd, name, 0);
	}
	if (ok)
		cache_run_keep(c, key);
	return ok;
}

void cache_state_put(struct cache *c, const struct cache_key *key, const void *data, size_t len)
{
	if (!c || !ensure_dir(c))
		return;
	cache_run_keep(c, key);
	char name[48];
	key_hex(key, name);
	memcpy(name + 32, ".scan", 6);
	struct buf b = BUF_INIT;
	size_t hlen = put_header(&c->key, &b, KIND_STATE);
	wire_put_bytes(&b, data, len);
	cache_seal(&c->key, &b, hlen);
	write_at(c->rfd, name, &b);
	buf_free(&b);
}

void cache_run_keep(struct cache *c, const struct cache_key *key)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	if (c->nkept == c->kept_cap) {
		c->kept_cap = c->kept_cap ? 2 * c->kept_cap : 64;
		c->kept = xrealloc(c->kept, c->kept_cap * sizeof *c->kept);
	}
	c->kept[c->nkept++] = *key;
	pthread_mutex_unlock(&c->mu);
}

static int cmp_key(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct cache_key));
}

/* The key a run file is named by ("<32 hex digits>.run", or ".scan"
 * for a log's resume state); false for any other name. */
static bool run_name_key(const char *name, struct cache_key *out)
{
	size_t n = strlen(name), h = 2 * sizeof out->b;
	if (!(n == h + 4 && strcmp(name + h, ".run") == 0) &&
	    !(n == h + 5 && strcmp(name + h, ".scan") == 0))
		return false;
	for (size_t i = 0; i < sizeof out->b; i++) {
		unsigned v = 0;
		for (int j = 0; j < 2; j++) {
			char ch = name[2 * i + (size_t)j];
			unsigned d = ch >= '0' && ch <= '9'   ? (unsigned)(ch - '0')
				     : ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10)
							      : 16u;
			if (d == 16u)
				return false;
			v = v * 16 + d;
		}
		out->b[i] = (unsigned char)v;
	}
	return true;
}

void cache_runs_prune(struct cache *c)
{
	if (!c)
		return;
	/* the stores still being sealed are in place first */
	seals_join(c);
	if (!c->writable || c->rfd < 0)
		return;
	/* Listed through the folder open at rfd: a runs folder swapped for
	 * a link since is not the one listed. */
	size_t n = 0, cap = 0;
	char **names = NULL;
	int lfd = dup(c->rfd);
	DIR *dp = lfd >= 0 ? fdopendir(lfd) : NULL;
	if (!dp && lfd >= 0)
		close(lfd);
	if (dp) {
		rewinddir(dp);
		for (struct dirent *de; (de = readdir(dp));) {
			if (n + 1 >= cap) {
				cap = cap ? 2 * cap : 64;
				names = xrealloc(names, cap * sizeof *names);
			}
			names[n++] = xstrdup(de->d_name);
			names[n] = NULL;
		}
		closedir(dp);
	}
	pthread_mutex_lock(&c->mu);
	if (c->nkept > 1)
		qsort(c->kept, c->nkept, sizeof *c->kept, cmp_key);
	for (size_t i = 0; names && i < n; i++) {
		struct cache_key k;
		/* a temporary file is some writer's, perhaps another build's */
		if (!run_name_key(names[i], &k) ||
		    (c->nkept && bsearch(&k, c->kept, c->nkept, sizeof *c->kept, cmp_key)))
			continue;
		/* unlinkat() removes an entry of the folder itself (a link
		 * planted there, not what it points to; never a folder). */
		unlinkat(c->rfd, names[i], 0);
	}
	pthread_mutex_unlock(&c->mu);
	strv_free(names);
}

/* --- memos (memo.h) --- */

/* A report's memo's file name in the cache folder: "memo-" and the
 * XXH3-64 of the report's path in 16 hex digits. */
static char *memo_name(const char *report)
{
	return xasprintf("memo-%016llx", (unsigned long long)XXH3_64bits(report, strlen(report)));
}

bool cache_memo_read(struct cache *c, const char *report, struct buf *body)
{
	buf_clear(body);
	if (!c)
		return false;
	cache_memo_keep(c, report);
	char *name = memo_name(report);
	struct buf b = BUF_INIT;
	bool ok = false;
	pthread_mutex_lock(&c->mu); /* ensure_dir() may be opening it */
	int dfd = c->dfd;
	pthread_mutex_unlock(&c->mu);
	if (!read_at(dfd, name, &b)) {
		const char *why = read_problem(errno);
		if (why) {
			char *path = path_join(c->dir, name);
			warn_damaged(c, path, why);
			free(path);
			if (c->writable)
				unlinkat(dfd, name, 0);
		}
		goto out;
	}
	struct wire_rd r;
	enum verdict v = cache_open_sealed(&c->key, b.data, b.len, KIND_MEMO, &r);
	if (verdict_why(v)) {
		char *path = path_join(c->dir, name);
		warn_damaged(c, path, verdict_why(v));
		free(path);
		if (c->writable)
			unlinkat(dfd, name, 0);
	}
	if (v != FILE_OK)
		goto out;
	buf_put(body, r.p, (size_t)(r.end - r.p));
	ok = true;
out:
	buf_free(&b);
	free(name);
	return ok;
}

void cache_memo_write(struct cache *c, const char *report, const void *p, size_t n)
{
	if (!c || !ensure_dir(c))
		return;
	struct buf b = BUF_INIT;
	size_t hlen = put_header(&c->key, &b, KIND_MEMO);
	buf_put(&b, p, n);
	cache_seal(&c->key, &b, hlen);
	char *name = memo_name(report);
	write_at(c->dfd, name, &b);
	free(name);
	buf_free(&b);
}

void cache_memo_keep(struct cache *c, const char *report)
{
	if (!c)
		return;
	char *name = memo_name(report);
	pthread_mutex_lock(&c->mu);
	if (c->nmemos == c->memos_cap) {
		c->memos_cap = c->memos_cap ? 2 * c->memos_cap : 16;
		c->memos = xrealloc(c->memos, c->memos_cap * sizeof *c->memos);
	}
	c->memos[c->nmemos++] = name;
	pthread_mutex_unlock(&c->mu);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void cache_memo_prune(struct cache *c)
{
	if (!c || !c->writable || c->dfd < 0)
		return;
	int lfd = dup(c->dfd);
	DIR *dp = lfd >= 0 ? fdopendir(lfd) : NULL;
	if (!dp) {
		if (lfd >= 0)
			close(lfd);
		return;
	}
	pthread_mutex_lock(&c->mu);
	if (c->nmemos > 1)
		qsort(c->memos, c->nmemos, sizeof *c->memos, cmp_str);
	rewinddir(dp);
	for (struct dirent *de; (de = readdir(dp));) {
		const char *nm = de->d_name;
		/* only our names: a temporary file is some writer's */
		if (strncmp(nm, "memo-", 5) != 0 || strlen(nm) != 21 ||
		    strspn(nm + 5, "0123456789abcdef") != 16)
			continue;
		if (c->nmemos && bsearch(&nm, c->memos, c->nmemos, sizeof *c->memos, cmp_str))
			continue;
		unlinkat(c->dfd, nm, 0);
	}
	pthread_mutex_unlock(&c->mu);
	closedir(dp);
}

/* --- report keys --- */

struct report_entry {
	char *slug;
	struct cache_key key;
};

/* The slugs found by a hash index (open addressing, entry + 1, 0 for
 * none): a site of thousands of reports asks for each one. */
struct cache_reports {
	struct report_entry *e;
	size_t n, cap;
	size_t *index;
	size_t icap; /* 0 or a power of two, over twice n */
};

static char *reports_name(const char *out)
{
	return xasprintf("reports-%016llx", (unsigned long long)XXH3_64bits(out, strlen(out)));
}

static char *reports_path(const struct cache *c, const char *out)
{
	char *name = reports_name(out);
	char *path = path_join(c->dir, name);
	free(name);
	return path;
}

struct cache_reports *cache_reports_new(void)
{
	return xcalloc(1, sizeof(struct cache_reports));
}

void cache_reports_free(struct cache_reports *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->e[i].slug);
	free(r->e);
	free(r->index);
	free(r);
}

/* The index slot of slug: its entry's, or the empty one it would take. */
static size_t *reports_slot(const struct cache_reports *r, const char *slug)
{
	for (size_t i = (size_t)str_hash(slug) & (r->icap - 1);; i = (i + 1) & (r->icap - 1))
		if (!r->index[i] || strcmp(r->e[r->index[i] - 1].slug, slug) == 0)
			return &r->index[i];
}

void cache_reports_add(struct cache_reports *r, const char *slug, const struct cache_key *key)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->e = xrealloc(r->e, r->cap * sizeof *r->e);
	}
	if (2 * (r->n + 1) > r->icap) {
		free(r->index);
		r->icap = r->icap ? 2 * r->icap : 32;
		r->index = xcalloc(r->icap, sizeof *r->index);
		for (size_t i = 0; i < r->n; i++) {
			size_t *at = reports_slot(r, r->e[i].slug);
			if (!*at)
				*at = i + 1;
		}
	}
	r->e[r->n].slug = xstrdup(slug);
	r->e[r->n].key = *key;
	r->n++;
	/* a slug listed twice: the first one counts, as it always did */
	size_t *at = reports_slot(r, slug);
	if (!*at)
		*at = r->n;
}

bool cache_reports_has(const struct cache_reports *r, const char *slug, const struct cache_key *key)
{
	if (!r || !r->n)
		return false;
	size_t at = *reports_slot(r, slug);
	return at && memcmp(r->e[at - 1].key.b, key->b, sizeof key->b) == 0;
}

struct cache_reports *cache_reports_load(struct cache *c, const char *out)
{
	struct cache_reports *set = cache_reports_new();
	char *path = reports_path(c, out);
	char *name = reports_name(out);
	char *marker = path_join(out, ".logdown-site");
	struct buf b = BUF_INIT;
	int64_t now[5];
	if (!read_at(c->dfd, name, &b)) {
		const char *why = read_problem(errno);
		if (why) {
			warn_damaged(c, path, why);
			if (c->writable)
				unlinkat(c->dfd, name, 0);
		}
		goto out;
	}
	if (!stat_sig(marker, now))
		goto out;
	struct wire_rd r;
	enum verdict v = cache_open_sealed(&c->key, b.data, b.len, KIND_REPORTS, &r);
	if (verdict_why(v))
		warn_damaged(c, path, verdict_why(v));
	if (v != FILE_OK)
		goto out;
	char *stored_out = wire_str(&r);
	int64_t sig[5];
	for (int j = 0; j < 5; j++)
		sig[j] = (int64_t)wire_u64(&r);
	bool same = !r.bad && strcmp(stored_out, out) == 0 && memcmp(sig, now, sizeof sig) == 0;
	free(stored_out);
	uint64_t n = wire_u64(&r);
	for (uint64_t i = 0; i < n && !r.bad; i++) {
		char *slug = wire_str(&r);
		struct cache_key k;
		wire_get(&r, k.b, sizeof k.b);
		if (!r.bad)
			cache_reports_add(set, slug, &k);
		free(slug);
	}
	if (r.bad || r.p != r.end)
		warn_damaged(c, path, "damaged (its report list is inconsistent)");
	if (r.bad || r.p != r.end || !same) {
		/* another build wrote the output since: nothing in it is known */
		cache_reports_free(set);
		set = cache_reports_new();
	}
out:
	buf_free(&b);
	free(marker);
	free(name);
	free(path);
	return set;
}

void cache_reports_save(struct cache *c, struct cache_reports *r, const char *out,
			const char *marker)
{
	int64_t sig[5];
	if (ensure_dir(c) && stat_sig(marker, sig)) {
		struct buf b = BUF_INIT;
		size_t hlen = put_header(&c->key, &b, KIND_REPORTS);
		wire_put_str(&b, out);
		for (int j = 0; j < 5; j++)
			wire_put_u64(&b, (uint64_t)sig[j]);
		wire_put_u64(&b, r->n);
		for (size_t i = 0; i < r->n; i++) {
			wire_put_str(&b, r->e[i].slug);
			buf_put(&b, (const char *)r->e[i].key.b, sizeof r->e[i].key.b);
		}
		cache_seal(&c->key, &b, hlen);
		char *name = reports_name(out);
		write_at(c->dfd, name, &b);
		free(name);
		buf_free(&b);
	}
	cache_reports_free(r);
}

bool cache_remove(const char *root)
{
	char *dir = path_join(root, CACHE_DIR);
	char *tag = path_join(dir, TAG_NAME);
	bool ok = true;
	struct stat st, tst;
	if (lstat(dir, &st) != 0) {
		/* nothing to do */
	} else if (S_ISLNK(st.st_mode)) {
		ok = unlink(dir) == 0; /* the link, never what it points to */
	} else if (!S_ISDIR(st.st_mode) || lstat(tag, &tst) != 0 || !S_ISREG(tst.st_mode)) {
		errno = EPERM;
		ok = false;
	} else {
		ok = remove_tree(dir);
	}
	free(tag);
	free(dir);
	return ok;
}
