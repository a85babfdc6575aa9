/* gfmarena.c: cmark-gfm's memory for one document, an arena.
 *
 * cmark-gfm allocates every node, every literal and every buffer of a
 * parse on its own (about 850 callocs for a page of 5 KB), and the tree
 * frees them one by one: malloc and free were a tenth of a 1,000-page
 * site's instructions.  Its allocator interface (struct cmark_mem) has
 * no context argument, so the arena to allocate from is the one made
 * current on the calling thread around the parse (thread-local); each
 * block starts with a header naming its arena (or none: the heap), so
 * that realloc() and free() of a block, whenever they come, treat it as
 * what it is.  The arena is freed whole, with the document. */
#include "gfmarena.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Before each block: where it came from and how big it is.  16 bytes,
 * so that blocks keep malloc's alignment. */
struct head {
	struct gfm_arena *arena; /* NULL: the heap */
	size_t size;
};

#define CHUNK ((size_t)64 * 1024)

struct chunk {
	struct chunk *next;
	size_t size, used;
	alignas(max_align_t) unsigned char data[];
};

struct gfm_arena {
	struct chunk *chunks; /* the newest first: blocks come from it */
	struct head *last;    /* the newest block, grown in place */
};

static _Thread_local struct gfm_arena *current;

/* Chunks of the standard size, freed with their arenas and kept for the
 * next: a page's parse takes one or two, and glibc's free() of a block
 * of 64 KiB or more first consolidates its small free blocks
 * (malloc_consolidate()), which with the malloc() to take it again was
 * a few per cent of a site's build.  At most MAX_SPARE kept, for the
 * process, under spare_lock. */
#define MAX_SPARE 16
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static struct chunk *spare;
static size_t nspare;

struct gfm_arena *gfm_arena_new(void)
{
	return xcalloc(1, sizeof(struct gfm_arena));
}

void gfm_arena_free(struct gfm_arena *a)
{
	if (!a)
		return;
	for (struct chunk *c = a->chunks, *next; c; c = next) {
		next = c->next;
		bool kept = false;
		if (c->size == CHUNK) {
			pthread_mutex_lock(&spare_lock);
			if (nspare < MAX_SPARE) {
				c->next = spare;
				spare = c;
				nspare++;
				kept = true;
			}
			pthread_mutex_unlock(&spare_lock);
		}
		if (!kept)
			free(c);
	}
	free(a);
}

struct gfm_arena *gfm_arena_use(struct gfm_arena *a)
{
	struct gfm_arena *was = current;
	current = a;
	return was;
}

static size_t round16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

/* A new newest chunk for a, with room for need bytes: a spare one of
 * the standard size, or one from the heap.  Out of line: a chunk serves
 * hundreds of blocks. */
__attribute__((noinline)) static struct chunk *chunk_add(struct gfm_arena *a, size_t need)
{
	size_t cs = need > CHUNK / 4 ? need : CHUNK;
	struct chunk *c = NULL;
	if (cs == CHUNK) {
		pthread_mutex_lock(&spare_lock);
		if (spare) {
			c = spare;
			spare = c->next;
			nspare--;
		}
		pthread_mutex_unlock(&spare_lock);
	}
	if (!c)
		c = xmalloc(sizeof *c + cs);
	c->size = cs;
	c->used = 0;
	c->next = a->chunks;
	a->chunks = c;
	return c;
}

/* size bytes, not cleared, from a's newest chunk or a new one.  Inline:
 * cmark-gfm asks for about a thousand blocks a page, and the call with
 * the chunk's bookkeeping was most of each. */
static inline struct head *arena_take(struct gfm_arena *a, size_t size)
{
	size_t need = sizeof(struct head) + round16(size);
	struct chunk *c = a->chunks;
	if (__builtin_expect(!c || c->size - c->used < need, 0))
		c = chunk_add(a, need);
	struct head *h = (struct head *)(c->data + c->used);
	c->used += need;
	h->arena = a;
	h->size = size;
	a->last = h;
	return h;
}

static void *mem_calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / 2 / size)
		abort(); /* as xcalloc: cmark asks for nothing near this */
	size_t bytes = n * size;
	struct head *h;
	if (current) {
		h = arena_take(current, bytes);
		memset(h + 1, 0, bytes);
	} else {
		h = xcalloc(1, sizeof *h + bytes);
		h->size = bytes;
	}
	return h + 1;
}

static void mem_free(void *p)
{
	if (!p)
		return;
	struct head *h = (struct head *)p - 1;
	if (!h->arena)
		free(h); /* an arena's blocks go with it */
}

static void *mem_realloc(void *p, size_t size)
{
	if (!p)
		return mem_calloc(1, size);
	struct head *h = (struct head *)p - 1;
	if (!h->arena) {
		h = xrealloc(h, sizeof *h + size);
		h->size = size;
		return h + 1;
	}
	struct gfm_arena *a = h->arena;
	struct chunk *c = a->chunks;
	/* the newest block (a buffer growing as a line is read) grows in
	 * place while its chunk has room */
	if (h == a->last && size > h->size) {
		size_t end = (size_t)((unsigned char *)h - c->data) + sizeof *h + round16(size);
		if (end <= c->size) {
			c->used = end;
			h->size = size;
			return p;
		}
	}
	if (size <= h->size) {
		h->size = size;
		return p;
	}
	struct head *n = arena_take(a, size);
	memcpy(n + 1, p, h->size);
	return n + 1;
}

static cmark_mem arena_mem = {mem_calloc, mem_realloc, mem_free};

cmark_mem *gfm_arena_mem(void)
{
	return &arena_mem;
}
