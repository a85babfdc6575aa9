/* test_mapguard.c: reads of a mapped file guarded against its
 * truncation (base/mapguard.c): a read of a page the file lost returns
 * to the guard's sigsetjmp(), on the thread that faulted, with the
 * guard disarmed; guards nest, the innermost taking its fault; a
 * fault outside the guarded bytes goes to the handler there was before
 * (cmocka's, in the first two tests; the default, which kills, in the
 * third). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/mapguard.h"
#include "base/util.h"
#define TMPDIR_TAG "mapguard"
#include "tmpdirs.h"

#define SIZE ((size_t)64 << 10)

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = make_tmpdir();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	drop_tmpdir(dir);
	return 0;
}

/* A file of SIZE bytes, mapped whole, then cut to 4 KiB: its pages
 * past the first are gone.  *fd stays open. */
static const char *mapped_then_cut(int *fd)
{
	char *path = xasprintf("%s/f", dir);
	*fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	free(path);
	assert_true(*fd >= 0);
	char *b = xcalloc(SIZE, 1);
	memset(b, 'x', SIZE);
	assert_int_equal(write(*fd, b, SIZE), (ssize_t)SIZE);
	free(b);
	void *p = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, *fd, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(ftruncate(*fd, 4096), 0);
	return p;
}

static void a_read_past_a_cut_end_returns_to_the_guard(void **state)
{
	(void)state;
	assert_true(map_guard_ready());
	int fd;
	const char *p = mapped_then_cut(&fd);
	volatile int reached = 0, faulted = 0;
	volatile char c = 0;
	struct map_guard g;
	if (sigsetjmp(g.jb, 1) == 0) {
		map_guard_arm(&g, p, SIZE);
		c = p[0]; /* still there */
		reached = 1;
		c = p[SIZE / 2]; /* gone: SIGBUS */
		reached = 2;
		map_guard_disarm(&g);
	} else {
		faulted = 1;
	}
	assert_int_equal(c, 'x');
	assert_int_equal(reached, 1);
	assert_int_equal(faulted, 1);
	/* disarmed by the fault: a second guard takes the next one */
	faulted = 0;
	struct map_guard h;
	if (sigsetjmp(h.jb, 1) == 0) {
		map_guard_arm(&h, p, SIZE);
		c = p[SIZE - 1];
		map_guard_disarm(&h);
	} else {
		faulted = 1;
	}
	assert_int_equal(faulted, 1);
	munmap((void *)p, SIZE);
	close(fd);
}

static void the_innermost_guard_takes_its_fault(void **state)
{
	(void)state;
	assert_true(map_guard_ready());
	int fd;
	const char *p = mapped_then_cut(&fd);
	static char other[16];
	volatile int outer_fault = 0, inner_fault = 0, after = 0;
	volatile char c = 0;
	struct map_guard outer;
	if (sigsetjmp(outer.jb, 1) == 0) {
		map_guard_arm(&outer, other, sizeof other);
		struct map_guard inner;
		if (sigsetjmp(inner.jb, 1) == 0) {
			map_guard_arm(&inner, p, SIZE);
			c = p[SIZE / 2];
			map_guard_disarm(&inner);
		} else {
			inner_fault = 1;
		}
		after = 1; /* the outer guard goes on */
		map_guard_disarm(&outer);
	} else {
		outer_fault = 1;
	}
	(void)c;
	assert_int_equal(inner_fault, 1);
	assert_int_equal(outer_fault, 0);
	assert_int_equal(after, 1);
	munmap((void *)p, SIZE);
	close(fd);
}

static void a_fault_outside_the_guarded_bytes_is_not_taken(void **state)
{
	(void)state;
	int fd;
	const char *p = mapped_then_cut(&fd);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* what there was before: the default (not cmocka's, which
		 * would go on with the tests in the child) */
		signal(SIGBUS, SIG_DFL);
		if (!map_guard_ready())
			_exit(4);
		static char other[16];
		struct map_guard g;
		if (sigsetjmp(g.jb, 1) == 0) {
			map_guard_arm(&g, other, sizeof other);
			volatile char c = p[SIZE / 2];
			(void)c;
			map_guard_disarm(&g);
			_exit(0); /* survived the fault: wrong */
		}
		_exit(3); /* taken by a guard of other bytes: wrong */
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	/* handed to the default: killed by SIGBUS */
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGBUS)
		fail_msg("the child %s %d", WIFSIGNALED(st) ? "died of signal" : "exited",
			 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	munmap((void *)p, SIZE);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_read_past_a_cut_end_returns_to_the_guard),
		cmocka_unit_test(the_innermost_guard_takes_its_fault),
		cmocka_unit_test(a_fault_outside_the_guarded_bytes_is_not_taken),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
