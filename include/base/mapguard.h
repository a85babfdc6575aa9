/* mapguard.h: reading a file through a mapping without dying of it
 * (mapguard.c).  A file truncated while it is mapped makes a read of
 * its lost pages raise SIGBUS, which kills the process; inside a
 * guard, the fault returns to the guard's sigsetjmp() instead, on the
 * thread that faulted, and the caller reads the file another way.
 *
 *	struct map_guard g;
 *	if (sigsetjmp(g.jb, 1) == 0) {
 *		map_guard_arm(&g, p, len);
 *		... read p[0, len) ...
 *		map_guard_disarm(&g);
 *	} else {
 *		... faulted: g is disarmed; what the reads did is undone
 *		    by the caller ...
 *	}
 *
 * Guards nest per thread; a fault outside every guard (or outside the
 * guarded bytes) goes to the handler that was there before, or kills
 * the process as SIGBUS does. */
#ifndef LOGDOWN_BASE_MAPGUARD_H
#define LOGDOWN_BASE_MAPGUARD_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

struct map_guard {
	sigjmp_buf jb;
	const char *lo, *hi; /* the bytes guarded */
	struct map_guard *outer;
};

/* Installs the SIGBUS handler, unless it is the one there (a handler
 * put there since is replaced and chained to); false when it cannot
 * be, and then nothing may be guarded: read the file without mapping
 * it.  Call before each mapped read. */
bool map_guard_ready(void);
/* Guards reads of [p, p + len) on this thread until disarmed; g->jb
 * must have been set by sigsetjmp(g->jb, 1) just before. */
void map_guard_arm(struct map_guard *g, const void *p, size_t len);
void map_guard_disarm(struct map_guard *g);

#endif
