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

#include "base/fsutil.h"
#include "base/util.h"

/* A child process that ran logdown, and what it printed (named proc, not
 * run: include/data/run.h's struct run is the program's own). */
struct proc {
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

/* The binary for a test's reference builds (a --no-cache build, the
 * site under test is compared with) and its steps that only set the
 * scene: logdown itself, but in `make valgrind`'s pass (LOGDOWN_VALGRIND)
 * the ASan build beside it, when it is built.  Memcheck is for the path
 * under test (a carried run, a cached page); a plain build is checked
 * under memcheck by every other test, and under ASan by this very test
 * in check-all's run.  References built under memcheck doubled
 * test_appends' time there (2026-11-28); and a step that must finish
 * within a time (a log still "racy" when read) cannot count on memcheck's
 * start-up, seconds at a load of 7. */
static inline const char *e2e_plain_binary(void)
{
	static char abs[4096];
	if (!getenv("LOGDOWN_VALGRIND"))
		return e2e_binary();
	if (!abs[0]) {
		char *cwd = getcwd(NULL, 0);
		snprintf(abs, sizeof abs, "%s/build/asan/logdown", cwd ? cwd : ".");
		free(cwd);
	}
	return access(abs, X_OK) == 0 ? abs : e2e_binary();
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

/* Removes the folder *dir (from e2e_tmpdir()) and everything in it,
 * frees its name and sets *dir to NULL; nothing when *dir is NULL. */
static inline void e2e_drop(char **dir)
{
	if (*dir) {
		remove_tree(*dir);
		free(*dir);
		*dir = NULL;
	}
}

/* Writes len bytes of data to dir/rel, creating folders. */
static inline void e2e_write_bytes(const char *dir, const char *rel, const char *data, size_t len)
{
	char *path = path_join(dir, rel);
	char *parent = path_dirname(path);
	assert_true(mkdir_p(parent));
	assert_true(file_write(path, data, len));
	free(parent);
	free(path);
}

/* Writes text to dir/rel, creating folders. */
static inline void e2e_write(const char *dir, const char *rel, const char *text)
{
	e2e_write_bytes(dir, rel, text, strlen(text));
}

/* Copies the file from (a fixture: a path from the repository's root,
 * where the tests run) to dir/rel, creating folders; fails when from
 * cannot be read. */
/* Appends text to dir/rel (a log a job goes on writing, a prose edit). */
static inline void e2e_append(const char *dir, const char *rel, const char *text)
{
	char *path = path_join(dir, rel);
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

static inline void e2e_copy(const char *dir, const char *rel, const char *from)
{
	struct buf b = BUF_INIT;
	if (!file_read(from, &b, NULL)) {
		buf_free(&b);
		fail_msg("cannot read the fixture %s", from);
	}
	e2e_write_bytes(dir, rel, buf_data(&b), b.len);
	buf_free(&b);
}

/* A file of a test project: its path in the project, and its text or,
 * when text is NULL, the fixture to copy there (a path from the
 * repository's root).  Written with E2E_TEXT() and E2E_COPY(). */
struct e2e_file {
	const char *rel;
	const char *text;
	const char *fixture;
};

#define E2E_TEXT(rel, text) {(rel), (text), NULL}
#define E2E_COPY(rel, fixture) {(rel), NULL, (fixture)}
/* A list of files for e2e_project(), ended by {0}. */
#define E2E_FILES(...) ((const struct e2e_file[]){__VA_ARGS__, {0}})

/* The start of most tests: a fresh project (e2e_tmpdir()) holding
 * files, e.g. E2E_FILES(E2E_TEXT("content/r/index.md", md),
 * E2E_COPY("content/r/logs/a.log", "tests/fixtures/...")).  Caller
 * removes it with e2e_drop(). */
static inline char *e2e_project(const struct e2e_file *files)
{
	char *dir = e2e_tmpdir();
	for (const struct e2e_file *f = files; f->rel; f++) {
		if (f->text)
			e2e_write(dir, f->rel, f->text);
		else
			e2e_copy(dir, f->rel, f->fixture);
	}
	return dir;
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

/* Runs `logdown ARGS` (a shell word list, printf-style) in folder cwd,
 * with NO_COLOR unset and stdin from /dev/null.  Caller frees the
 * result with proc_free(). */
static inline struct proc e2e_runv_bin(const char *bin, const char *cwd, const char *fmt,
					va_list ap)
{
	struct buf args = BUF_INIT;
	buf_vprintf(&args, fmt, ap);
	char out[] = "/tmp/logdown-out-XXXXXX", err[] = "/tmp/logdown-err-XXXXXX";
	int fo = mkstemp(out), fe = mkstemp(err);
	assert_true(fo >= 0 && fe >= 0);
	close(fo);
	close(fe);
	char *cmd = xasprintf("cd '%s' && env -u NO_COLOR '%s' %s </dev/null >%s 2>%s", cwd,
			      bin, buf_data(&args), out, err);
	int st = system(cmd);
	struct proc r;
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	r.out = e2e_read("/", out);
	r.err = e2e_read("/", err);
	unlink(out);
	unlink(err);
	free(cmd);
	buf_free(&args);
	return r;
}

static inline struct proc e2e_runv(const char *cwd, const char *fmt, va_list ap)
{
	return e2e_runv_bin(e2e_binary(), cwd, fmt, ap);
}

static inline struct proc e2e_run(const char *cwd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct proc r = e2e_runv(cwd, fmt, ap);
	va_end(ap);
	return r;
}

/* e2e_run() with another binary, bin (e2e_plain_binary()). */
static inline struct proc e2e_run_bin(const char *bin, const char *cwd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline struct proc e2e_run_bin(const char *bin, const char *cwd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct proc r = e2e_runv_bin(bin, cwd, fmt, ap);
	va_end(ap);
	return r;
}

static inline void proc_free(struct proc *r)
{
	free(r->out);
	free(r->err);
}

/* Runs `logdown ARGS` in cwd as e2e_run() does; fails, showing its
 * stderr, unless it exits 0. */
static inline void e2e_okv_bin(const char *bin, const char *cwd, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	struct proc r = e2e_runv_bin(bin, cwd, fmt, ap);
	if (r.status != 0) {
		struct buf args = BUF_INIT;
		buf_vprintf(&args, fmt, again);
		fail_msg("logdown %s exited %d with:\n%s", buf_data(&args), r.status, r.err);
	}
	va_end(again);
	proc_free(&r);
}

static inline void e2e_ok(const char *cwd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void e2e_ok(const char *cwd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	e2e_okv_bin(e2e_binary(), cwd, fmt, ap);
	va_end(ap);
}

/* e2e_ok() by e2e_plain_binary(): a reference build. */
static inline void e2e_ok_plain(const char *cwd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void e2e_ok_plain(const char *cwd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	e2e_okv_bin(e2e_plain_binary(), cwd, fmt, ap);
	va_end(ap);
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

/* The pixels of page 1 of pdf, drawn at dpi by pdftoppm into dir,
 * within tol of colour rgb (0xRRGGBB) in each channel. */
static inline long e2e_pdf_pixels(const char *pdf, const char *dir, int dpi, unsigned rgb,
				  int tol)
{
	char *out = path_join(dir, "page");
	int status;
	free(e2e_sh(&status, "pdftoppm -r %d -f 1 -l 1 '%s' '%s'", dpi, pdf, out));
	assert_int_equal(status, 0);
	char *name = path_join(dir, "page-1.ppm");
	struct buf img = BUF_INIT;
	assert_true(file_read(name, &img, NULL));
	int w, h, max, off = 0;
	assert_int_equal(sscanf(buf_data(&img), "P6 %d %d %d%n", &w, &h, &max, &off), 3);
	const unsigned char *px = (const unsigned char *)buf_data(&img) + off + 1;
	int r0 = (rgb >> 16) & 255, g0 = (rgb >> 8) & 255, b0 = rgb & 255;
	long n = 0;
	for (long i = 0; i < (long)w * h; i++)
		if (abs(px[3 * i] - r0) < tol && abs(px[3 * i + 1] - g0) < tol &&
		    abs(px[3 * i + 2] - b0) < tol)
			n++;
	buf_free(&img);
	free(name);
	free(out);
	return n;
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


/* The report body of a page: the bytes after `<div class="ld-content">`
 * and its newline, up to the last "\n</div>\n</article>", which closes
 * it (what the page template's {{{content}}} expanded to).  NULL when
 * page is NULL or has no such part; caller frees. */
static inline char *e2e_page_body(const char *page)
{
	static const char open[] = "<div class=\"ld-content\">\n";
	static const char close[] = "\n</div>\n</article>";
	const char *start = page ? strstr(page, open) : NULL;
	if (!start)
		return NULL;
	start += strlen(open);
	const char *end = NULL;
	for (const char *p = strstr(start, close); p; p = strstr(p + 1, close))
		end = p;
	return end ? xstrndup(start, (size_t)(end - start)) : NULL;
}

/* What the current test holds, freed by e2e_free_kept() (call it from
 * the test's teardown): a failed assertion leaves the test at once, and
 * the sanitizer would count the rest as leaks. */
static void *e2e_kept[256];
static size_t e2e_nkept;

/* Registers p (may be NULL) to be freed after the test; returns it. */
static inline void *e2e_keep(void *p)
{
	assert_true(e2e_nkept < ARRAY_LEN(e2e_kept));
	e2e_kept[e2e_nkept++] = p;
	return p;
}

/* r, its output kept to be freed after the test. */
static inline struct proc e2e_keep_proc(struct proc r)
{
	e2e_keep(r.out);
	e2e_keep(r.err);
	return r;
}

static inline void e2e_free_kept(void)
{
	for (size_t i = 0; i < e2e_nkept; i++)
		free(e2e_kept[i]);
	e2e_nkept = 0;
}

/* TEST_FILTER=PATTERN runs only the tests whose names match (cmocka's
 * pattern: `TEST_FILTER='a_proof*' build/asan/test_appends`), so that a
 * test can be run, or timed under memcheck, alone.  Call it in main()
 * before cmocka_run_group_tests(). */
static inline void e2e_test_filter(void)
{
	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER"));
}

/* Builds the project in dir with `logdown build ARGS`, which must
 * succeed without a word beyond "logdown: built 1 report into _site";
 * returns the body (e2e_page_body()) of its report r's page,
 * _site/r/index.html, which must have one.  Caller frees.  On a failure
 * the run is left to e2e_free_kept(). */
static inline char *e2e_build_body_with(const char *bin, const char *dir, const char *args)
{
	struct proc r = e2e_run_bin(bin, dir, "build %s", args);
	if (r.status != 0 || strcmp(r.err, "logdown: built 1 report into _site\n") != 0) {
		e2e_keep_proc(r);
		fail_msg("logdown build %s exited %d with:\n%s", args, r.status, r.err);
	}
	proc_free(&r);
	char *page = e2e_read(dir, "_site/r/index.html");
	char *body = e2e_page_body(page);
	free(page);
	assert_non_null(body);
	return body;
}

static inline char *e2e_build_body(const char *dir, const char *args)
{
	return e2e_build_body_with(e2e_binary(), dir, args);
}


/* s without the log colours' <span class="hl-NAME">...</span> (each
 * holds text only), in place; returns s.  For tests about a log's
 * lines, anchors and marks (test_codeblocks checks the colours). */
static inline char *e2e_strip_hl(char *s)
{
	if (!s)
		return s;
	char *w = s;
	const char *r = s;
	while (*r) {
		const char *gt, *close;
		if (strncmp(r, "<span class=\"hl-", 16) == 0 && (gt = strchr(r, '>')) &&
		    (close = strstr(gt, "</span>"))) {
			size_t n = (size_t)(close - gt - 1);
			memmove(w, gt + 1, n);
			w += n;
			r = close + 7;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return s;
}

#endif
