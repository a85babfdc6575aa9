/* test_browser.c: `logdown serve` in a real browser: headless Chromium,
 * driven by playwright-core (tests/browser/live_reload.mjs), opens a
 * report, the report's source is edited, and the new text must appear
 * without a reload by hand.
 *
 * Another makes a rebuild fail and checks the error overlay.  The last
 * builds the example reports (content/) and looks at
 * every page at 390 and 1280 px, light and dark, through
 * tests/browser/layout.mjs and the checks in tests/browser/checks/.
 *
 * It needs /usr/bin/chromium, node and tests/browser/node_modules
 * (tools/deps.sh installs them under CI=true or LOGDOWN_BROWSER_TESTS=1);
 * without them it says so and skips. */
#include "e2e.h"

#include <signal.h>
#include <time.h>
#include <sys/types.h>

static bool have_browser(void)
{
	return is_file("/usr/bin/chromium") && is_dir("tests/browser/node_modules/playwright-core") &&
	       system("command -v node >/dev/null 2>&1") == 0;
}

/* Starts `logdown serve dir --port 0`; returns its pid, and its port in
 * *port once it says where it serves (or -1 after 20 s). */
static pid_t serve_start(const char *dir, const char *log, int *port)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen(log, "w", stderr) || !freopen("/dev/null", "w", stdout))
			_exit(127);
		execl(e2e_binary(), "logdown", "serve", dir, "--port", "0", (char *)NULL);
		_exit(127);
	}
	*port = -1;
	for (int i = 0; i < 200 && *port < 0; i++) {
		nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
		char *text = e2e_read("/", log);
		const char *at = text ? strstr(text, "http://127.0.0.1:") : NULL;
		if (at)
			*port = atoi(at + strlen("http://127.0.0.1:"));
		free(text);
	}
	return pid;
}

/* Skips the calling test when there is no browser to drive. */
static void need_browser(void)
{
	if (!have_browser()) {
		printf("browser test: /usr/bin/chromium, node or tests/browser/node_modules "
		       "missing (LOGDOWN_BROWSER_TESTS=1 make test installs them); skipped\n");
		skip();
	}
}

/* Serves a one-report project (its value from a Cerebras log) and runs
 * `node tests/browser/SCRIPT URL REPORT FROM TO`, which edits the
 * report's text FROM to TO and watches the open page; the script and
 * the server must both end well. */
static void serve_and_edit(const char *script, const char *from, const char *to)
{
	alarm(120); /* never hang CI */
	char *dir = e2e_project(E2E_FILES(
		E2E_COPY("content/r/logs/bs512.log", "tests/fixtures/cerebras/bs512.log"),
		E2E_TEXT("content/r/index.md",
			 "---\ntitle: Live\nruns:\n  cs: logs/bs512.log\n---\n"
			 "The loss was {{ cs.final_loss }}. Original sentence.\n")));
	char *serve_log = path_join(dir, "serve.log");
	int port;
	pid_t pid = serve_start(dir, serve_log, &port);
	assert_true(port > 0);

	char *src = path_join(dir, "content/r/index.md");
	char *cmd = xasprintf("node tests/browser/%s 'http://127.0.0.1:%d/r/' '%s' '%s' '%s' >&2",
			      script, port, src, from, to);
	int rc = system(cmd);

	kill(pid, SIGTERM);
	int st = 0;
	waitpid(pid, &st, 0);
	alarm(0);
	assert_int_equal(rc, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);

	free(cmd);
	free(src);
	free(serve_log);
	remove_tree(dir);
	free(dir);
}

static void edited_source_shows_in_the_open_page(void **state)
{
	(void)state;
	need_browser();
	serve_and_edit("live_reload.mjs", "Original sentence", "Edited sentence");
}

/* The example reports, as their readers see them: on a phone and on a
 * wide screen, light and dark.  What is measured is in layout.mjs and
 * tests/browser/checks/; each failure names the page, width and scheme. */
static void example_reports_hold_at_every_width(void **state)
{
	(void)state;
	need_browser();
	alarm(600); /* never hang CI */
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof cwd));
	char *dir = e2e_tmpdir();
	char *site = path_join(dir, "site");
	e2e_ok(cwd, "build . -o '%s'", site);
	char *cmd = xasprintf("node tests/browser/layout.mjs '%s' >&2", site);
	int rc = system(cmd);
	alarm(0);
	assert_int_equal(rc, 0);
	free(cmd);
	free(site);
	remove_tree(dir);
	free(dir);
}

/* A failed rebuild shows its error over the page, leaving the header
 * and the title readable, and its close button removes it. */
static void the_error_overlay_leaves_the_title_readable_and_closes(void **state)
{
	(void)state;
	need_browser();
	serve_and_edit("overlay.mjs", "{{ cs.final_loss }}", "{{ cs.final_los }}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(edited_source_shows_in_the_open_page),
		cmocka_unit_test(the_error_overlay_leaves_the_title_readable_and_closes),
		cmocka_unit_test(example_reports_hold_at_every_width),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
