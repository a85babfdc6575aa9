/* e2e.h: helpers for end-to-end tests that run the logdown binary.
 *
 * Tests run from the repository root.  The binary under test is the
 * sanitized build/asan/logdown unless LOGDOWN names another. */
#ifndef LOGDOWN_E2E_H
#define LOGDOWN_E2E_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

struct run {
	int status; /* the exit status, or 128+signal */
	char *out;  /* what it wrote to stdout */
	char *err;  /* and to stderr */
};

static inline const char *e2e_binary(void)
{
	const char *b = getenv("LOGDOWN");
	static char abs[4096];
	if (b && *b)
		return b;
	if (!abs[0]) {
		char *cwd = getcwd(NULL, 0);
		snprintf(abs, sizeof abs, "%s/build/asan/logdown", cwd ? cwd : ".");
		free(cwd);
	}
	return abs;
}

/* A fresh temporary folder; caller removes it with remove_tree() and
 * frees the name. */
static inline char *e2e_tmpdir(void)
{
	char tmpl[] = "/tmp/logdown-e2e-XXXXXX";
	char *d = mkdtemp(tmpl);
	assert_non_null(d);
	return xstrdup(d);
}

/* Writes text to dir/rel, creating folders. */
static inline void e2e_write(const char *dir, const char *rel, const char *text)
{
	char *path = path_join(dir, rel);
	char *parent = path_dirname(path);
	assert_true(mkdir_p(parent));
	assert_true(file_write(path, text, strlen(text)));
	free(parent);
	free(path);
}

/* The contents of dir/rel, or NULL when it cannot be read.  Caller frees. */
static inline char *e2e_read(const char *dir, const char *rel)
{
	char *path = path_join(dir, rel);
	struct buf b = BUF_INIT;
	bool ok = file_read(path, &b, NULL);
	free(path);
	if (!ok) {
		buf_free(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* Runs `logdown ARGS` (a shell word list) in folder cwd, with NO_COLOR
 * unset and stdin from /dev/null. */
static inline struct run e2e_run(const char *cwd, const char *fmt, ...)
{
	struct buf args = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&args, fmt, ap);
	va_end(ap);
	char out[] = "/tmp/logdown-out-XXXXXX", err[] = "/tmp/logdown-err-XXXXXX";
	int fo = mkstemp(out), fe = mkstemp(err);
	assert_true(fo >= 0 && fe >= 0);
	close(fo);
	close(fe);
	char *cmd = xasprintf("cd '%s' && env -u NO_COLOR '%s' %s </dev/null >%s 2>%s", cwd,
			      e2e_binary(), buf_data(&args), out, err);
	int st = system(cmd);
	struct run r;
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	r.out = e2e_read("/", out);
	r.err = e2e_read("/", err);
	unlink(out);
	unlink(err);
	free(cmd);
	buf_free(&args);
	return r;
}

static inline void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* Runs a shell command (printf-style) and returns all it printed on
 * stdout; *status (may be NULL) gets its exit status.  Caller frees. */
static inline char *e2e_shv(int *status, const char *fmt, va_list ap)
{
	struct buf cmd = BUF_INIT;
	buf_vprintf(&cmd, fmt, ap);
	FILE *f = popen(buf_data(&cmd), "r");
	assert_non_null(f);
	struct buf out = BUF_INIT;
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_put(&out, chunk, n);
	int st = pclose(f);
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	buf_free(&cmd);
	return buf_detach(&out);
}

static inline char *e2e_sh(int *status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline char *e2e_sh(int *status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *out = e2e_shv(status, fmt, ap);
	va_end(ap);
	return out;
}

/* Fails with the haystack shown when needle is not in it. */
#define assert_contains(hay, needle)                                                     \
	do {                                                                             \
		const char *h_ = (hay), *n_ = (needle);                                  \
		if (!h_ || !strstr(h_, n_))                                              \
			fail_msg("expected to find:\n%s\nin:\n%s", n_, h_ ? h_ : "(null)"); \
	} while (0)
#define assert_not_contains(hay, needle)                                                 \
	do {                                                                             \
		const char *h_ = (hay), *n_ = (needle);                                  \
		if (h_ && strstr(h_, n_))                                                \
			fail_msg("did not expect:\n%s\nin:\n%s", n_, h_);                 \
	} while (0)

#endif
