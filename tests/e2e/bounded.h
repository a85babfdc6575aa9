/* bounded.h: runs logdown with its time and memory measured, and checks
 * that a failed build left the previous site exactly as it was.
 *
 * Include after e2e.h. */
#ifndef LOGDOWN_BOUNDED_H
#define LOGDOWN_BOUNDED_H

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

struct bounded {
	int status;    /* exit status, or 128+signal */
	char *err;     /* stderr */
	double secs;   /* wall-clock time */
	double cpu_secs; /* the child's user and system time: what it did, however busy the machine */
	/* the child's peak resident memory, measured by /usr/bin/time: the
	 * kernel's own count (wait4's ru_maxrss) starts from the forking
	 * test's memory, since the pages a child shares before exec count
	 * as its own, so it reported the test's size, not logdown's */
	long maxrss_kb;
};

/* The release binary (./logdown, built by `make logdown`) measures
 * memory truly: ASan reserves and touches memory of its own.  NULL when
 * it is not there, and in `make valgrind`'s pass (LOGDOWN_VALGRIND):
 * there it would run natively, beside memcheck, checking nothing
 * memcheck checks, and its time and memory were measured in check-all's
 * run already (over 2 CPU-minutes of such runs a pass). */
static inline const char *bounded_release(void)
{
	if (getenv("LOGDOWN_VALGRIND"))
		return NULL;
	static char abs[4096];
	if (!abs[0]) {
		char *cwd = getcwd(NULL, 0);
		snprintf(abs, sizeof abs, "%s/logdown", cwd ? cwd : ".");
		free(cwd);
	}
	return access(abs, X_OK) == 0 ? abs : NULL;
}

/* The release binary, whose time and memory a bounded test measures;
 * without it (not built, or under valgrind) the test is skipped, saying
 * so. */
static inline const char *bounded_release_or_skip(void)
{
	const char *rel = bounded_release();
	if (!rel) {
		print_message("[  SKIP    ] ./logdown is not built (or under valgrind): not measured\n");
		skip();
	}
	return rel;
}

static inline double bounded_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs bin with argv (argv[0] included, NULL-terminated) in cwd, with
 * env (NAME=VALUE strings, NULL-terminated, may be NULL) added, NO_COLOR
 * unset and stdin from /dev/null.  The child is killed after
 * timeout_secs.  With uid non-zero, the child runs as that user and
 * group (the caller must be root).  Caller frees with bounded_free(). */
static inline struct bounded bounded_run_as(const char *bin, const char *cwd,
					    const char *const *argv, const char *const *env,
					    double timeout_secs, uid_t uid)
{
	char err[] = "/tmp/logdown-err-XXXXXX";
	int fe = mkstemp(err);
	assert_true(fe >= 0);
	char rss[] = "/tmp/logdown-rss-XXXXXX";
	int fr = mkstemp(rss);
	assert_true(fr >= 0);
	close(fr);
	if (uid)
		assert_int_equal(chown(rss, uid, uid), 0);
	if (uid)
		assert_int_equal(fchown(fe, uid, uid), 0);
	double t0 = bounded_now();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		int out = open("/dev/null", O_WRONLY);
		if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(fe, 2) < 0)
			_exit(126);
		unsetenv("NO_COLOR");
		for (size_t i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		if (uid && (setgroups(0, NULL) != 0 || setgid(uid) != 0 || setuid(uid) != 0))
			_exit(126);
		if (chdir(cwd) != 0)
			_exit(126);
		if (access("/usr/bin/time", X_OK) == 0) {
			size_t n = 0;
			while (argv[n])
				n++;
			const char **targv = calloc(n + 6, sizeof *targv);
			if (!targv)
				_exit(126);
			targv[0] = "/usr/bin/time";
			targv[1] = "-f";
			targv[2] = "%M";
			targv[3] = "-o";
			targv[4] = rss;
			targv[5] = bin;
			for (size_t i = 1; i <= n; i++)
				targv[5 + i] = argv[i];
			execv("/usr/bin/time", (char *const *)targv);
			_exit(127);
		}
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	close(fe);
	int st = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	for (;;) {
		pid_t w = wait4(pid, &st, WNOHANG, &ru);
		if (w == pid)
			break;
		if (bounded_now() - t0 > timeout_secs) {
			kill(pid, SIGKILL);
			wait4(pid, &st, 0, &ru);
			break;
		}
		usleep(2000);
	}
	struct bounded r;
	r.secs = bounded_now() - t0;
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	/* the last line /usr/bin/time wrote (after a "Command exited with
	 * non-zero status" line), or unknown (-1) without it */
	r.maxrss_kb = -1;
	char *t = e2e_read("/", rss);
	if (t && *t) {
		size_t n = strlen(t);
		while (n && t[n - 1] == '\n')
			t[--n] = '\0';
		const char *line = strrchr(t, '\n');
		r.maxrss_kb = atol(line ? line + 1 : t);
	}
	free(t);
	unlink(rss);
	r.cpu_secs = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	r.err = e2e_read("/", err);
	unlink(err);
	return r;
}

static inline struct bounded bounded_run(const char *bin, const char *cwd,
					 const char *const *argv, const char *const *env,
					 double timeout_secs)
{
	return bounded_run_as(bin, cwd, argv, env, timeout_secs, 0);
}

static inline void bounded_free(struct bounded *r)
{
	free(r->err);
}

/* Appends a listing of everything under dir/rel: each entry's path,
 * kind, and for a file its bytes, for a link its target, in name order,
 * so that two listings are equal exactly when the trees are. */
static inline void tree_put(struct buf *b, const char *dir, const char *rel)
{
	char *path = *rel ? path_join(dir, rel) : xstrdup(dir);
	struct stat st;
	if (lstat(path, &st) != 0) {
		buf_printf(b, "%s: missing\n", rel);
	} else if (S_ISLNK(st.st_mode)) {
		char target[4096];
		ssize_t n = readlink(path, target, sizeof target - 1);
		target[n > 0 ? n : 0] = '\0';
		buf_printf(b, "%s -> %s\n", rel, target);
	} else if (S_ISDIR(st.st_mode)) {
		buf_printf(b, "%s/ %lu\n", rel, (unsigned long)st.st_ino);
		size_t n;
		char **names = dir_list(path, &n);
		for (size_t i = 0; names && i < n; i++) {
			char *sub = *rel ? path_join(rel, names[i]) : xstrdup(names[i]);
			tree_put(b, dir, sub);
			free(sub);
		}
		strv_free(names);
	} else {
		struct buf data = BUF_INIT;
		file_read(path, &data, NULL);
		buf_printf(b, "%s %zu\n", rel, data.len);
		buf_put(b, buf_data(&data), data.len);
		buf_free(&data);
	}
	free(path);
}

/* The listing of the tree at dir; caller frees. */
static inline char *tree_snapshot(const char *dir)
{
	struct buf b = BUF_INIT;
	tree_put(&b, dir, "");
	return buf_detach(&b);
}

#endif
