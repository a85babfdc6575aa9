/* mapguard.c: SIGBUS turned into a return for reads of a mapped file
 * (mapguard.h).  The build cache hashes a log through a mapping
 * (cache.c): half the CPU of copying it out with pread(), but a log
 * truncated meanwhile by its writer (a job restarted) would kill the
 * build.  The handler finds the thread's innermost guard; a fault in
 * the bytes it guards jumps back to its sigsetjmp(), which restores the
 * signal mask (SIGBUS is blocked while the handler runs).  Any other
 * SIGBUS is the previous handler's, or the default's: the handler puts
 * that back and returns, and the faulting access, made again, ends the
 * process as it would have. */
#include "base/mapguard.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

static _Thread_local struct map_guard *current;
static struct sigaction before;
static bool ready;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void on_bus(int sig, siginfo_t *si, void *uc)
{
	struct map_guard *g = current;
	const char *at = si ? (const char *)si->si_addr : NULL;
	if (g && at >= g->lo && at < g->hi) {
		current = g->outer;
		siglongjmp(g->jb, 1);
	}
	if ((before.sa_flags & SA_SIGINFO) && before.sa_sigaction) {
		before.sa_sigaction(sig, si, uc);
		return;
	}
	if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN) {
		before.sa_handler(sig);
		return;
	}
	/* the default: the access is made again, and kills */
	signal(SIGBUS, SIG_DFL);
}

static void install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_bus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	ready = sigaction(SIGBUS, &sa, &before) == 0;
}

bool map_guard_ready(void)
{
	pthread_once(&once, install);
	return ready;
}

void map_guard_arm(struct map_guard *g, const void *p, size_t len)
{
	g->lo = p;
	g->hi = (const char *)p + len;
	g->outer = current;
	current = g;
}

void map_guard_disarm(struct map_guard *g)
{
	current = g->outer;
}
