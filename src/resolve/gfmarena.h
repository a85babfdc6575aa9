/* gfmarena.h: cmark-gfm's memory for one document: an arena
 * (gfmarena.c; docs/internals.md, "cmark-gfm on several threads"). */
#ifndef RESOLVE_GFMARENA_H
#define RESOLVE_GFMARENA_H

#include <cmark-gfm.h>

struct gfm_arena;

/* An empty arena.  Free with gfm_arena_free(), after everything that was
 * allocated from it: the tree and the parser that made it. */
struct gfm_arena *gfm_arena_new(void);
void gfm_arena_free(struct gfm_arena *a);

/* The allocator to give cmark_parser_new_with_mem().  What it allocates
 * while an arena is current on the calling thread comes from that arena
 * and is freed with it (its free() does nothing); what it allocates
 * otherwise comes from the heap, and its free() frees it.  A block keeps
 * where it came from, so a tree may be changed after its parse, on the
 * thread that owns it. */
cmark_mem *gfm_arena_mem(void);

/* Makes a current on this thread (NULL: none) and returns the arena
 * that was, to be given back to gfm_arena_use() after the parse. */
struct gfm_arena *gfm_arena_use(struct gfm_arena *a);

#endif
