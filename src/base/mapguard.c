/* mapguard.c: SIGBUS turned into a return for reads of a mapped file
 * (mapguard.h).  The build cache hashes a big file through a mapping
 * (cache.c): the copy's system time saved, but a log truncated
 * meanwhile by its writer (a job restarted) would kill the build.  The
 * handler is checked before each mapped read and put back if another
 * took its place (that one is then chained to).  The handler finds the thread's innermost guard; a fault in
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
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

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

static bool is_ours(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_bus;
}

bool map_guard_ready(void)
{
	/* Checked on every use: a handler put there since (a library's, a
	 * test harness's) is replaced, and becomes the one chained to. */
	struct sigaction cur;
	if (sigaction(SIGBUS, NULL, &cur) != 0)
		return false;
	if (is_ours(&cur))
		return true;
	pthread_mutex_lock(&mu);
	bool ok = sigaction(SIGBUS, NULL, &cur) == 0;
	if (ok && !is_ours(&cur)) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_bus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		ok = sigaction(SIGBUS, &sa, &before) == 0;
	}
	pthread_mutex_unlock(&mu);
	return ok;
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
