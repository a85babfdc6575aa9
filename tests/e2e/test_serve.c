/* test_serve.c: `logdown serve` over real sockets.
 *
 * One server runs for the group: started on a free port with its
 * stderr in a file, spoken to with a tiny HTTP/1.0 client, stopped
 * with SIGTERM by the last test.  Every wait is bounded (socket
 * timeouts, deadlines, and an alarm over the whole run), so a bug can
 * fail the tests but never hang CI. */
#define _DEFAULT_SOURCE /* wait4(), setgroups(), usleep() for bounded.h */
#include "e2e.h"
#include "plant.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <time.h>

#include "bounded.h"

extern char **environ;

#define FIXTURE_LOG "tests/fixtures/cerebras/bs512.log"
#define OLD_LOSS "7.12500"
#define NEW_LOSS "6.54321"

static const char report_md[] = "---\n"
				 "title: Served\n"
				 "date: 2024-04-08\n"
				 "runs:\n"
				 "  cs: ../../results/run.log\n"
				 "---\n"
				 "Final loss {{ cs.final_loss }}.\n";

/* A second report, on a log of its own: left alone when the first
 * report's log changes. */
static const char other_md[] = "---\n"
				"title: Other\n"
				"date: 2024-04-09\n"
				"runs:\n"
				"  cs: ../../results/other.log\n"
				"---\n"
				"Other loss {{ cs.final_loss }}.\n";

static char *project;
static char *errfile;
static pid_t server = -1;
/* a test's own server, while it runs: stopped by the group's teardown
 * when the test fails before it stops it */
static pid_t other_server = -1;
static unsigned port;

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* The project's log, with its final loss replaced by loss. */
static void write_log(const char *loss)
{
	char *text = e2e_read(".", FIXTURE_LOG);
	assert_non_null(text);
	char *at = strstr(text, "Loss=" OLD_LOSS);
	assert_non_null(at);
	memcpy(at + strlen("Loss="), loss, strlen(OLD_LOSS));
	/* Replaced by rename, the way many editors and jobs save. */
	e2e_write(project, "results/run.log.tmp", text);
	char *from = path_join(project, "results/run.log.tmp");
	char *to = path_join(project, "results/run.log");
	assert_int_equal(rename(from, to), 0);
	free(from);
	free(to);
	free(text);
}

/* --- a tiny HTTP/1.0 client --- */

static int connect_server(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	struct timeval tv = {5, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	struct sockaddr_in sa = {0};
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	return fd;
}

static void send_all(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		assert_true(w > 0);
		s += w;
		n -= (size_t)w;
	}
}

struct response {
	int status;
	char *head; /* status line and headers */
	char *body;
	size_t body_len;
};

/* Sends `METHOD path` with extra header lines (each ending in \r\n) and
 * reads the whole response. */
static struct response http(const char *method, const char *path, const char *headers)
{
	int fd = connect_server();
	char *req = xasprintf("%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\n%s\r\n", method, path,
			      headers ? headers : "");
	send_all(fd, req);
	free(req);
	struct buf b = BUF_INIT;
	char chunk[4096];
	ssize_t n;
	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		buf_put(&b, chunk, (size_t)n);
	close(fd);
	struct response r = {0};
	const char *text = buf_data(&b);
	const char *end = strstr(text, "\r\n\r\n");
	if (!end)
		fail_msg("no complete response to %s %s:\n%s", method, path, text);
	r.head = xstrndup(text, (size_t)(end - text) + 2);
	r.body_len = b.len - (size_t)(end + 4 - text);
	r.body = xstrndup(end + 4, r.body_len);
	assert_int_equal(sscanf(r.head, "HTTP/1.%*d %d", &r.status), 1);
	buf_free(&b);
	return r;
}

static void response_free(struct response *r)
{
	free(r->head);
	free(r->body);
}

/* The value of header name (with its ": "), borrowed up to "\r\n" and
 * copied; NULL when absent.  Caller frees. */
static char *header(const struct response *r, const char *name)
{
	char *key = xasprintf("\r\n%s: ", name);
	const char *p = strstr(r->head, key);
	char *v = NULL;
	if (p) {
		p += strlen(key);
		v = xstrndup(p, strcspn(p, "\r"));
	}
	free(key);
	return v;
}

/* Opens /__logdown/events and waits for the stream to start. */
static int events_open(void)
{
	int fd = connect_server();
	send_all(fd, "GET /__logdown/events HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
	return fd;
}

/* How many times longer every wait is: under `make valgrind`
 * (LOGDOWN_VALGRIND) a rebuild takes ten times as long, and these tests
 * check that things happen, not valgrind's speed. */
static long slow(void)
{
	return getenv("LOGDOWN_VALGRIND") ? 10 : 1;
}

/* Reads the stream into acc until it holds needle, for at most ms.
 * Returns whether it did. */
static bool events_wait(int fd, struct buf *acc, const char *needle, long ms)
{
	long deadline = now_ms() + ms * slow();
	while (!strstr(buf_data(acc), needle)) {
		long left = deadline - now_ms();
		if (left <= 0)
			return false;
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		char chunk[4096];
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n <= 0)
			return strstr(buf_data(acc), needle) != NULL;
		buf_put(acc, chunk, (size_t)n);
	}
	return true;
}

/* --- the server --- */

/* Waits (bounded) for the child pid to exit; its status as e2e_run
 * gives.  A child still there after ms is killed, and the test fails. */
static int child_wait(pid_t pid, long ms)
{
	ms *= slow();
	long deadline = now_ms() + ms;
	int st;
	for (;;) {
		pid_t p = waitpid(pid, &st, WNOHANG);
		if (p == pid)
			break;
		if (now_ms() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			fail_msg("logdown serve did not stop within %ld ms", ms);
		}
		sleep_ms(5);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* The same for the group's server, which is gone after it. */
static int server_wait(long ms)
{
	pid_t pid = server;
	server = -1;
	return child_wait(pid, ms);
}

/* Starts `BIN serve DIR --port 0 [OPT]`, stderr to err, and reads its
 * port.  Returns false when it did not start within 20 s. */
static bool spawn_serve_with(const char *bin, const char *dir, const char *opt, const char *err,
			     pid_t *pid, unsigned *port_out)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char *argv[] = {(char *)bin, (char *)"serve", (char *)dir, (char *)"--port", (char *)"0",
			(char *)opt, NULL};
	int e = posix_spawn(pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e != 0)
		return false;

	/* The port is in the line "serving DIR at http://127.0.0.1:PORT/". */
	long deadline = now_ms() + 20000 * slow();
	while (now_ms() < deadline) {
		char *text = e2e_read("/", err);
		const char *p = text ? strstr(text, "at http://127.0.0.1:") : NULL;
		if (p && strchr(p, '\n')) {
			*port_out = 0;
			sscanf(p, "at http://127.0.0.1:%u/", port_out);
			free(text);
			return *port_out != 0;
		}
		free(text);
		sleep_ms(50);
	}
	fprintf(stderr, "logdown serve did not start\n");
	return false;
}

static bool spawn_serve(const char *bin, const char *dir, const char *err, pid_t *pid,
			unsigned *port_out)
{
	return spawn_serve_with(bin, dir, NULL, err, pid, port_out);
}

/* Starts `logdown serve PROJECT --port 0`, stderr to errfile. */
static bool server_start(void)
{
	return spawn_serve(e2e_binary(), project, errfile, &server, &port);
}

static int group_setup(void **state)
{
	(void)state;
	project = e2e_tmpdir();
	e2e_write(project, "content/r/index.md", report_md);
	e2e_write(project, "content/s/index.md", other_md);
	e2e_copy(project, "results/other.log", FIXTURE_LOG);
	write_log(OLD_LOSS);
	/* a file big enough that a browser may leave before it is sent */
	size_t big = 4 << 20;
	char *text = xmalloc(big + 1);
	memset(text, 'x', big);
	text[big] = '\0';
	e2e_write(project, "static/big.txt", text);
	free(text);
	errfile = xasprintf("%s.err", project);
	return server_start() ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	if (server > 0) {
		kill(server, SIGKILL);
		waitpid(server, NULL, 0);
	}
	if (other_server > 0) {
		kill(other_server, SIGKILL);
		waitpid(other_server, NULL, 0);
	}
	char *err = e2e_read("/", errfile);
	if (err && strstr(err, "ERROR: AddressSanitizer"))
		fprintf(stderr, "%s", err);
	free(err);
	unlink(errfile);
	free(errfile);
	remove_tree(project);
	free(project);
	return 0;
}

/* --- tests --- */

static void pages_are_served_with_the_live_script(void **state)
{
	(void)state;
	struct response r = http("GET", "/", NULL);
	assert_int_equal(r.status, 200);
	char *type = header(&r, "Content-Type");
	assert_string_equal(type, "text/html; charset=utf-8");
	assert_contains(r.body, "new EventSource('/__logdown/events')");
	assert_contains(r.body, "href=\"r/index.html\"");
	free(type);
	response_free(&r);

	r = http("GET", "/r/", NULL);
	assert_int_equal(r.status, 200);
	assert_contains(r.body, OLD_LOSS);
	assert_contains(r.body, "new EventSource('/__logdown/events')");
	assert_contains(r.body, "addEventListener('error'");
	assert_contains(r.body, "__logdown-overlay");
	/* injected just before </body> */
	assert_contains(r.body, "</script>\n</body>");
	response_free(&r);

	/* never into the built files */
	char *page = e2e_read(project, "_site/r/index.html");
	assert_non_null(page);
	assert_not_contains(page, "__logdown");
	free(page);

	r = http("GET", "/static/logdown.css", NULL);
	assert_int_equal(r.status, 200);
	type = header(&r, "Content-Type");
	assert_string_equal(type, "text/css; charset=utf-8");
	assert_not_contains(r.body, "EventSource");
	free(type);
	response_free(&r);
}

static char *served_dir(void);
static char *timeless(const char *text);

static void the_first_line_says_what_was_built_and_where(void **state)
{
	(void)state;
	char *err = e2e_read("/", errfile);
	char *text = timeless(err);
	char *dir = served_dir();
	char *want = xasprintf("logdown: built 2 reports in T; serving %s at http://127.0.0.1:%u/\n",
			       dir, port);
	assert_string_equal(text, want);
	free(want);
	free(dir);
	free(text);
	free(err);
}

/* Sends req, reads up to `upto` bytes of the answer, then resets the
 * connection, as a browser does when a page is left or reloaded. */
static void hang_up(const char *req, size_t upto)
{
	int fd = connect_server();
	send_all(fd, req);
	char chunk[4096];
	size_t got = 0;
	ssize_t n;
	while (got < upto && (n = read(fd, chunk, sizeof chunk)) > 0)
		got += (size_t)n;
	struct linger lg = {1, 0}; /* close with RST: ECONNRESET on the server */
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
	close(fd);
}

static void a_browser_closing_a_connection_is_not_an_error(void **state)
{
	(void)state;
	char *before = e2e_read("/", errfile);
	/* a big file left half-way, an event stream closed with its page,
	 * and a request cut short */
	hang_up("GET /static/big.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 4096);
	hang_up("GET /__logdown/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 1);
	hang_up("GET /r/ HT", 0);
	/* the server still answers, and said nothing */
	sleep_ms(300);
	struct response r = http("GET", "/r/", NULL);
	assert_int_equal(r.status, 200);
	response_free(&r);
	char *after = e2e_read("/", errfile);
	assert_string_equal(after, before);
	free(after);
	free(before);
}

static void a_folder_without_its_slash_redirects(void **state)
{
	(void)state;
	struct response r = http("GET", "/r", NULL);
	assert_int_equal(r.status, 301);
	char *loc = header(&r, "Location");
	assert_string_equal(loc, "/r/");
	free(loc);
	response_free(&r);
	/* never to another host: //r/ would be the host r */
	static const char *const tricks[] = {"//r", "///r", "/%2Fr", "/%2F%2Fr", "//r//"};
	for (size_t i = 0; i < ARRAY_LEN(tricks); i++) {
		r = http("GET", tricks[i], NULL);
		if (r.status == 301) {
			loc = header(&r, "Location");
			if (strcmp(loc, "/r/") != 0)
				fail_msg("%s redirects to %s", tricks[i], loc);
			free(loc);
		}
		response_free(&r);
	}
}

static void head_has_headers_and_no_body(void **state)
{
	(void)state;
	struct response g = http("GET", "/r/", NULL);
	struct response r = http("HEAD", "/r/", NULL);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_len, 0);
	char *len = header(&r, "Content-Length");
	assert_non_null(len);
	assert_int_equal(strtoul(len, NULL, 10), g.body_len);
	free(len);
	response_free(&r);
	response_free(&g);
}

static void other_methods_are_405_with_allow(void **state)
{
	(void)state;
	static const char *const methods[] = {"POST", "PUT", "DELETE", "OPTIONS"};
	for (size_t i = 0; i < ARRAY_LEN(methods); i++) {
		struct response r = http(methods[i], "/r/", "Content-Length: 0\r\n");
		assert_int_equal(r.status, 405);
		char *allow = header(&r, "Allow");
		assert_string_equal(allow, "GET, HEAD");
		free(allow);
		response_free(&r);
	}
}

static void missing_files_and_folders_are_404(void **state)
{
	(void)state;
	struct response r = http("GET", "/nope.html", NULL);
	assert_int_equal(r.status, 404);
	response_free(&r);
	/* no listing for a folder without index.html */
	r = http("GET", "/static/", NULL);
	assert_int_equal(r.status, 404);
	assert_not_contains(r.body, "logdown.css");
	response_free(&r);
}

static void nothing_outside_the_output_is_served(void **state)
{
	(void)state;
	/* A link inside the output pointing out, made after the build. */
	char *link = path_join(project, "_site/pw");
	assert_int_equal(symlink("/etc/passwd", link), 0);
	char *dirlink = path_join(project, "_site/etc");
	assert_int_equal(symlink("/etc", dirlink), 0);

	struct buf longpath = BUF_INIT;
	buf_putc(&longpath, '/');
	for (int i = 0; i < 2000; i++)
		buf_putc(&longpath, 'a');
	const char *attempts[] = {
		"/../etc/passwd",
		"/%2e%2e/etc/passwd",
		"/%2e%2e%2fetc/passwd",
		"/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
		"/a/..%2f..%2fetc/passwd",
		"/r/../../etc/passwd",
		"/..%5c..%5cetc%5cpasswd",
		"/r/index.html%00.css",
		"/%00",
		"/pw",
		"/etc/passwd",
		"/../content/r/index.md",
		"/%2e%2e/results/run.log",
		"/.logdown-site",
		"//etc/passwd",
		buf_data(&longpath),
	};
	for (size_t i = 0; i < ARRAY_LEN(attempts); i++) {
		struct response r = http("GET", attempts[i], NULL);
		if (r.status != 403 && r.status != 404)
			fail_msg("GET %.60s: status %d, expected 403 or 404", attempts[i], r.status);
		assert_not_contains(r.body, "root:");
		assert_not_contains(r.body, "Final loss {{");
		assert_not_contains(r.body, "Loss=");
		response_free(&r);
	}
	buf_free(&longpath);
	unlink(dirlink);
	unlink(link);
	free(dirlink);
	free(link);
}

static void etag_then_if_none_match_is_304(void **state)
{
	(void)state;
	static const char *const paths[] = {"/static/logdown.css", "/r/"};
	for (size_t i = 0; i < ARRAY_LEN(paths); i++) {
		struct response r = http("GET", paths[i], NULL);
		assert_int_equal(r.status, 200);
		char *etag = header(&r, "ETag");
		assert_non_null(etag);
		char *h = xasprintf("If-None-Match: %s\r\n", etag);
		struct response again = http("GET", paths[i], h);
		assert_int_equal(again.status, 304);
		assert_int_equal(again.body_len, 0);
		response_free(&again);
		free(h);
		free(etag);
		response_free(&r);
	}
}

static void a_changed_log_rebuilds_and_reloads_within_2s(void **state)
{
	(void)state;
	int ev = events_open();
	struct buf acc = BUF_INIT;
	assert_true(events_wait(ev, &acc, "retry:", 5000));
	long start = now_ms();
	write_log(NEW_LOSS);
	if (!events_wait(ev, &acc, "event: reload\n", 2000))
		fail_msg("no reload event within 2 s; the stream had:\n%s", buf_data(&acc));
	assert_true(now_ms() - start <= 2000 * slow());
	struct response r = http("GET", "/r/", NULL);
	assert_int_equal(r.status, 200);
	assert_contains(r.body, NEW_LOSS);
	response_free(&r);
	buf_free(&acc);
	close(ev);
}

static void a_failed_rebuild_shows_errors_and_keeps_the_page(void **state)
{
	(void)state;
	int ev = events_open();
	struct buf acc = BUF_INIT;
	assert_true(events_wait(ev, &acc, "retry:", 5000));
	/* broken front matter: an unclosed flow sequence */
	e2e_write(project, "content/r/index.md",
		  "---\ntitle: [unclosed\ndate: 2024-04-08\nruns:\n  cs: ../../results/run.log\n"
		  "---\nFinal loss {{ cs.final_loss }}.\n");
	if (!events_wait(ev, &acc, "event: error\n", 3000))
		fail_msg("no error event; the stream had:\n%s", buf_data(&acc));
	/* the diagnostic, file:line:col first */
	assert_true(events_wait(ev, &acc, "\n\n", 1000));
	assert_contains(buf_data(&acc), "data: ");
	assert_contains(buf_data(&acc), "content/r/index.md:3:5: error: malformed YAML");

	/* the last good page is still served */
	struct response r = http("GET", "/r/", NULL);
	assert_int_equal(r.status, 200);
	assert_contains(r.body, NEW_LOSS);
	response_free(&r);

	/* a page opened now is told at once */
	int late = events_open();
	struct buf lacc = BUF_INIT;
	assert_true(events_wait(late, &lacc, "event: error\n", 3000));
	buf_free(&lacc);
	close(late);

	/* the terminal shows the same diagnostics */
	char *err = e2e_read("/", errfile);
	assert_contains(err, "content/r/index.md:3:5: error: malformed YAML");
	free(err);

	/* a file's name with line breaks in it cannot split the stream into
	 * a field of its own */
	buf_clear(&acc);
	e2e_write(project, "content/r/index.md",
		  "---\ntitle: T\nruns:\n  cs: \"x\\revent: reload\\r\\ndata: y\\n\\nevent: "
		  "reload\\n.log\"\n---\nFinal loss {{ cs.final_loss }}.\n");
	if (!events_wait(ev, &acc, "x?event: reload??data: y??event: reload?.log", 3000))
		fail_msg("no error event naming the file; the stream had:\n%s", buf_data(&acc));
	assert_null(strstr(buf_data(&acc), "event: reload\n"));

	e2e_write(project, "content/r/index.md", report_md);
	buf_clear(&acc);
	if (!events_wait(ev, &acc, "event: reload\n", 3000))
		fail_msg("no reload after the fix; the stream had:\n%s", buf_data(&acc));
	buf_free(&acc);
	close(ev);
}

static void a_burst_of_changes_gives_one_build(void **state)
{
	(void)state;
	char *before = e2e_read("/", errfile);
	int ev = events_open();
	struct buf acc = BUF_INIT;
	assert_true(events_wait(ev, &acc, "retry:", 5000));
	for (int i = 0; i < 5; i++) {
		write_log(i % 2 ? OLD_LOSS : NEW_LOSS);
		sleep_ms(20);
	}
	assert_true(events_wait(ev, &acc, "event: reload\n", 3000));
	/* nothing more comes */
	sleep_ms(800);
	events_wait(ev, &acc, "never", 200);
	const char *first = strstr(buf_data(&acc), "event: reload\n");
	assert_null(strstr(first + 1, "event: reload\n"));
	char *after = e2e_read("/", errfile);
	size_t rebuilds = 0;
	for (const char *p = after + strlen(before); (p = strstr(p, "rebuilding")); p++)
		rebuilds++;
	assert_int_equal(rebuilds, 1);
	free(after);
	free(before);
	buf_free(&acc);
	close(ev);
}

/* text with each duration serve printed ("in 35 ms", "in 1.2 s") as
 * "in T", so that its lines can be compared exactly (caller frees). */
static char *timeless(const char *text)
{
	struct buf b = BUF_INIT;
	for (const char *p = text; *p;) {
		if (strncmp(p, " in ", 4) == 0 && p[4] >= '0' && p[4] <= '9') {
			const char *q = p + 4;
			while ((*q >= '0' && *q <= '9') || *q == '.')
				q++;
			if (strncmp(q, " ms", 3) == 0 || strncmp(q, " s", 2) == 0) {
				buf_puts(&b, " in T");
				p = q + (q[1] == 'm' ? 3 : 2);
				continue;
			}
		}
		buf_putc(&b, *p++);
	}
	return buf_detach(&b);
}

/* Waits for the next reload, then returns what the server wrote to
 * stderr since `before`, durations as "in T" (caller frees). */
static char *rebuild_output(int ev, const char *before)
{
	struct buf acc = BUF_INIT;
	if (!events_wait(ev, &acc, "event: reload\n", 3000))
		fail_msg("no reload; the stream had:\n%s", buf_data(&acc));
	buf_free(&acc);
	char *after = e2e_read("/", errfile);
	assert_true(strlen(after) >= strlen(before));
	char *since = timeless(after + strlen(before));
	free(after);
	return since;
}

/* serve's output folder, from its line "serving DIR at ...". */
static char *served_dir(void)
{
	char *err = e2e_read("/", errfile);
	const char *p = strstr(err, "serving ");
	assert_non_null(p);
	p += strlen("serving ");
	const char *end = strstr(p, " at http://");
	assert_non_null(end);
	char *dir = xstrndup(p, (size_t)(end - p));
	free(err);
	return dir;
}

/* `logdown build` of the same sources writes exactly what serve wrote. */
static void assert_same_as_a_full_build(void)
{
	char *full = xasprintf("%s.full", project);
	struct proc b = e2e_run("/", "build '%s' -o '%s'", project, full);
	if (b.status != 0)
		fail_msg("logdown build failed:\n%s", b.err);
	proc_free(&b);
	char *dir = served_dir();
	char *cmd = xasprintf("diff -r '%s' '%s' >&2", dir, full);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(dir);
	remove_tree(full);
	free(full);
}

/* How many of pid's children have ended and not been waited for. */
static size_t zombies_of(pid_t pid)
{
	size_t n = 0;
	DIR *d = opendir("/proc");
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		char *stat = xasprintf("/proc/%s/stat", e->d_name);
		struct buf b = BUF_INIT;
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && file_read(stat, &b, NULL)) {
			/* "pid (comm) S ppid ...": after the last ')' */
			const char *close = strrchr(buf_data(&b), ')');
			char state;
			long ppid;
			if (close && sscanf(close + 1, " %c %ld", &state, &ppid) == 2 &&
			    state == 'Z' && ppid == (long)pid)
				n++;
		}
		buf_free(&b);
		free(stat);
	}
	closedir(d);
	return n;
}

static void a_change_rebuilds_only_the_reports_it_affects(void **state)
{
	(void)state;
	char *before = e2e_read("/", errfile);
	int ev = events_open();
	struct buf acc = BUF_INIT;
	assert_true(events_wait(ev, &acc, "retry:", 5000));
	buf_free(&acc);

	/* one report's log: that report only; the other is copied */
	write_log("5.55555");
	char *since = rebuild_output(ev, before);
	assert_contains(since, "logdown: a source changed; rebuilding\n"
			       "logdown: rebuilt 1 of 2 reports (r) in T\n");
	free(since);
	struct response r = http("GET", "/r/", NULL);
	assert_contains(r.body, "5.55555");
	response_free(&r);
	r = http("GET", "/s/", NULL);
	assert_int_equal(r.status, 200);
	assert_contains(r.body, "Other loss <a");
	assert_contains(r.body, OLD_LOSS);
	response_free(&r);
	assert_same_as_a_full_build();

	/* the other report's source: that one only */
	free(before);
	before = e2e_read("/", errfile);
	e2e_write(project, "content/s/index.md",
		  "---\ntitle: Other\ndate: 2024-04-09\nruns:\n  cs: ../../results/other.log\n"
		  "---\nOther loss now {{ cs.final_loss }}.\n");
	since = rebuild_output(ev, before);
	assert_contains(since, "logdown: rebuilt 1 of 2 reports (s) in T\n");
	free(since);
	r = http("GET", "/s/", NULL);
	assert_contains(r.body, "Other loss now <a");
	response_free(&r);
	r = http("GET", "/r/", NULL);
	assert_contains(r.body, "5.55555");
	response_free(&r);
	assert_same_as_a_full_build();

	/* site.yaml: everything */
	free(before);
	before = e2e_read("/", errfile);
	e2e_write(project, "site.yaml", "title: Served site\n");
	since = rebuild_output(ev, before);
	assert_contains(since, "logdown: rebuilt 2 of 2 reports (r, s) in T\n");
	free(since);
	assert_same_as_a_full_build();
	/* each build's remover of the previous output (outdir.c) is a
	 * child of serve, reaped by the next build: one may wait */
	struct timespec ms100 = {0, 100000000L};
	nanosleep(&ms100, NULL);
	size_t z = zombies_of(server);
	if (z > 1)
		fail_msg("serve has %zu children ended and not waited for", z);

	free(before);
	close(ev);
}

/* A rebuild reuses the unchanged report s from the previous output:
 * each kind of link planted in its folder, and each regular file no
 * build left there (one more in logs/, the page or a log changed in
 * place), makes it render again, and the new site has no link, no file
 * with a second name and nothing a full build would not write; a link
 * planted beside its page is not carried over either. */
static void nothing_planted_in_the_previous_output_is_carried_by_a_rebuild(void **state)
{
	(void)state;
	static const char *const losses[] = {"4.44444", "3.33333", "2.22222", "1.11111",
					     "5.55555", "6.66666", "7.77777"};
	assert_int_equal(sizeof losses / sizeof *losses, NPLANTS);
	int ev = events_open();
	struct buf acc = BUF_INIT;
	assert_true(events_wait(ev, &acc, "retry:", 5000));
	char *dir = served_dir();
	char *outside = xasprintf("%s.outside", project);
	for (int kind = 0; kind < NPLANTS; kind++) {
		plant(dir, "s", outside, (enum plant)kind);
		buf_clear(&acc);
		write_log(losses[kind]);
		if (!events_wait(ev, &acc, "event: reload\n", 10000))
			fail_msg("%s: no reload; the stream had:\n%s", plant_names[kind],
				 buf_data(&acc));
		char *cmd = xasprintf("find '%s' -type l -o -type f -links +1 | grep .", dir);
		if (system(cmd) == 0)
			fail_msg("%s: carried into the new site (above)", plant_names[kind]);
		free(cmd);
		struct response r = http("GET", "/s/logs/planted.txt", NULL);
		assert_int_equal(r.status, 404);
		response_free(&r);
		assert_same_as_a_full_build();
	}
	remove_tree(outside);
	free(outside);
	/* beside the page: the folder is linked file by file, without it */
	char *top = xasprintf("%s/s/leak.txt", dir);
	assert_int_equal(symlink("/etc/hostname", top), 0);
	buf_clear(&acc);
	/* written as soon as the reload comes, before serve polls again:
	 * the change must still be seen (serve once took its snapshot
	 * after publishing the build, and missed it now and then) */
	write_log("3.33333");
	if (!events_wait(ev, &acc, "event: reload\n", 10000))
		fail_msg("no reload; the stream had:\n%s", buf_data(&acc));
	struct response r = http("GET", "/s/leak.txt", NULL);
	assert_int_equal(r.status, 404);
	response_free(&r);
	free(top);
	buf_clear(&acc);
	write_log("1.11111");
	if (!events_wait(ev, &acc, "event: reload\n", 10000))
		fail_msg("no reload after the fix; the stream had:\n%s", buf_data(&acc));
	assert_same_as_a_full_build();
	free(dir);
	buf_free(&acc);
	close(ev);
}

static void a_port_in_use_is_exit_3(void **state)
{
	(void)state;
	/* the running server holds `port` */
	struct proc r = e2e_run(project, "serve . --port %u", port);
	assert_int_equal(r.status, 3);
	assert_contains(r.err, "Address already in use");
	assert_contains(r.err, "--port 0");
	proc_free(&r);
}

/* libmicrohttpd is opened when serve starts (cmd/httpd.c): missing,
 * serve says what to install and builds nothing. */
static void serve_without_libmicrohttpd_says_what_to_install(void **state)
{
	(void)state;
	setenv("LOGDOWN_TEST_LAZYLIB", "libmicrohttpd.so.12=liblogdown-gone.so.12", 1);
	struct proc r = e2e_run(project, "serve . --port 0 -o gone-site");
	unsetenv("LOGDOWN_TEST_LAZYLIB");
	assert_int_equal(r.status, 3);
	assert_string_equal(r.err, "logdown: error: serve needs libmicrohttpd: cannot load "
				   "liblogdown-gone.so.12 (liblogdown-gone.so.12: cannot open shared "
				   "object file: No such file or directory); install Debian's "
				   "libmicrohttpd12\n");
	assert_string_equal(r.out, "");
	char *site = path_join(project, "gone-site");
	assert_false(path_exists(site));
	free(site);
	proc_free(&r);
}

static void a_bad_host_is_a_usage_error(void **state)
{
	(void)state;
	struct proc r = e2e_run(project, "serve . --port 0 --host localhost.invalid");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "not a numeric address");
	proc_free(&r);
	r = e2e_run(project, "serve . --port 70000");
	assert_int_equal(r.status, 2);
	proc_free(&r);
}

static void sigterm_stops_with_0_and_leaves_nothing(void **state)
{
	(void)state;
	int ev = events_open(); /* an open page must not hold it up */
	struct buf acc = BUF_INIT;
	assert_true(events_wait(ev, &acc, "retry:", 5000));
	/* nor a kept-alive connection, nor one that sent half a request */
	int idle = connect_server();
	int half = connect_server();
	send_all(half, "GET / HTTP/1.1\r\nHost: x\r\n");
	sleep_ms(100);
	assert_int_equal(kill(server, SIGTERM), 0);
	long start = now_ms();
	assert_int_equal(server_wait(5000), 0);
	assert_true(now_ms() - start < 2000 * slow());
	buf_free(&acc);
	close(ev);
	close(idle);
	close(half);
	size_t n;
	char **names = dir_list(project, &n);
	assert_non_null(names);
	/* the build cache and the output's lock file stay, as after
	 * `logdown build` */
	for (size_t i = 0; i < n; i++)
		if (names[i][0] == '.' && strcmp(names[i], ".logdown-cache") != 0 &&
		    strcmp(names[i], "._site.lock") != 0)
			fail_msg("left behind: %s", names[i]);
	strv_free(names);
	char *err = e2e_read("/", errfile);
	assert_not_contains(err, "AddressSanitizer");
	assert_not_contains(err, "LeakSanitizer");
	free(err);
}

static void a_first_build_that_fails_is_served_and_recovers(void **state)
{
	(void)state;
	assert_true(server < 0); /* the previous test stopped it */
	char *site = path_join(project, "_site");
	assert_true(remove_tree(site));
	free(site);
	e2e_write(project, "content/r/index.md", "---\ntitle: [unclosed\n---\nbroken\n");
	assert_true(server_start());
	char *err = e2e_read("/", errfile);
	char *dir = served_dir();
	char *want = xasprintf("logdown: the build has 1 error (above); serving %s at "
			       "http://127.0.0.1:%u/\n",
			       dir, port);
	assert_contains(err, want);
	free(want);
	free(dir);
	free(err);

	/* no page yet: a 404 that still listens, and the error at once */
	struct response r = http("GET", "/r/", NULL);
	assert_int_equal(r.status, 404);
	assert_contains(r.body, "new EventSource('/__logdown/events')");
	response_free(&r);
	int ev = events_open();
	struct buf acc = BUF_INIT;
	if (!events_wait(ev, &acc, "malformed YAML", 5000))
		fail_msg("no error event; the stream had:\n%s", buf_data(&acc));

	e2e_write(project, "content/r/index.md", report_md);
	if (!events_wait(ev, &acc, "event: reload\n", 3000))
		fail_msg("no reload after the fix; the stream had:\n%s", buf_data(&acc));
	r = http("GET", "/r/", NULL);
	assert_int_equal(r.status, 200);
	assert_contains(r.body, "Final loss");
	response_free(&r);
	buf_free(&acc);
	close(ev);

	assert_int_equal(kill(server, SIGTERM), 0);
	assert_int_equal(server_wait(5000), 0);
}

/* A save is seen at once, not at the next poll: serve's poll is woken
 * by inotify on the folders of what it watches (cmd/wake.c).  With the
 * poll made ten minutes long, the page still reloads after an edit of
 * the report, of its log, and of a new report's file in a new folder. */
static void a_save_wakes_serve_without_waiting_for_the_poll(void **state)
{
	(void)state;
	assert_true(server < 0); /* the previous test stopped it */
	setenv("LOGDOWN_TEST_POLL_MS", "600000", 1);
	bool started = server_start();
	unsetenv("LOGDOWN_TEST_POLL_MS");
	assert_true(started);
	int ev = events_open();
	struct buf acc = BUF_INIT;
	assert_true(events_wait(ev, &acc, "retry:", 5000));

	e2e_write(project, "content/r/index.md",
		  "---\ntitle: Woken\n---\nWoken by the save.\n");
	if (!events_wait(ev, &acc, "event: reload\n", 5000))
		fail_msg("no reload after the save; the stream had:\n%s", buf_data(&acc));
	struct response r = http("GET", "/r/", NULL);
	assert_contains(r.body, "Woken by the save.");
	response_free(&r);

	buf_clear(&acc);
	e2e_write(project, "content/t/u/index.md", "---\ntitle: New\n---\nA new report.\n");
	if (!events_wait(ev, &acc, "event: reload\n", 5000))
		fail_msg("no reload after a new report; the stream had:\n%s", buf_data(&acc));
	r = http("GET", "/t/u/", NULL);
	assert_int_equal(r.status, 200);
	assert_contains(r.body, "A new report.");
	response_free(&r);
	buf_free(&acc);
	close(ev);
	char *t = path_join(project, "content/t");
	assert_true(remove_tree(t));
	free(t);
	e2e_write(project, "content/r/index.md", report_md);
	assert_int_equal(kill(server, SIGTERM), 0);
	assert_int_equal(server_wait(5000), 0);
}

/* How many times needle is in the file path. */
static size_t count_in(const char *path, const char *needle)
{
	char *text = e2e_read("/", path);
	size_t n = 0;
	for (const char *p = text; p && (p = strstr(p, needle)); p++)
		n++;
	free(text);
	return n;
}

/* serve --no-cache reuses by its watch's say alone, with no cache keys:
 * the listings it keeps between builds tell it, too, that a folder it
 * would reuse holds a link or a regular file no build left there (one
 * more, the page or a log changed in place): that report is rendered
 * again and the new site is a full build's.  An untouched one is
 * reused. */
static void without_the_cache_nothing_planted_is_carried_by_a_rebuild(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	static const char *const names[] = {"a", "b"};
	for (int i = 0; i < 2; i++) {
		char *rel = xasprintf("content/%s/index.md", names[i]);
		char *md = xasprintf("---\ntitle: %s\nruns:\n  cs: run.log\n---\nLoss {{ "
				     "cs.final_loss }}.\n",
				     names[i]);
		e2e_write(dir, rel, md);
		free(rel);
		free(md);
		rel = xasprintf("content/%s/run.log", names[i]);
		e2e_copy(dir, rel, FIXTURE_LOG);
		free(rel);
	}
	char *err = xasprintf("%s.err", dir);
	char *outside = xasprintf("%s.outside", dir);
	char *site = path_join(dir, "_site"), *full = xasprintf("%s.full", dir);
	char *log = path_join(dir, "content/a/run.log");
	/* its own port: the group's server keeps `port`; its pid where the
	 * group's teardown finds it should this test fail */
	unsigned own_port;
	assert_true(spawn_serve_with(e2e_binary(), dir, "--no-cache", err, &other_server,
				     &own_port));
	for (int kind = -1; kind <= NPLANTS; kind++) {
		/* first and last untouched: b is reused */
		bool planted = kind >= 0 && kind < NPLANTS;
		const char *what = planted ? plant_names[kind] : "nothing planted";
		if (planted)
			plant(site, "b", outside, (enum plant)kind);
		size_t before = count_in(err, "logdown: rebuilt");
		FILE *f = fopen(log, "a");
		assert_non_null(f);
		fprintf(f, "appended %d\n", kind);
		fclose(f);
		long until = now_ms() + 10000 * slow();
		while (count_in(err, "logdown: rebuilt") == before && now_ms() < until)
			sleep_ms(20);
		const char *want = planted ? "logdown: rebuilt 2 of 2 reports (a, b) in "
					   : "logdown: rebuilt 1 of 2 reports (a) in ";
		if (count_in(err, want) != (planted ? (size_t)kind + 1 : kind < 0 ? 1 : 2)) {
			char *text = e2e_read("/", err);
			fail_msg("%s: not \"%s\" in:\n%s", what, want, text);
		}
		char *cmd = xasprintf("find '%s' -type l -o -type f -links +1 | grep .", site);
		if (system(cmd) == 0)
			fail_msg("%s: carried into the new site (above)", what);
		free(cmd);
		struct proc b = e2e_run("/", "build '%s' --no-cache -o '%s'", dir, full);
		assert_int_equal(b.status, 0);
		proc_free(&b);
		cmd = xasprintf("diff -r '%s' '%s' >&2", site, full);
		if (system(cmd) != 0)
			fail_msg("%s: the site is not a full build's (above)", what);
		free(cmd);
		remove_tree(full);
	}
	pid_t pid = other_server;
	other_server = -1;
	kill(pid, SIGTERM);
	assert_int_equal(child_wait(pid, 5000), 0);
	unlink(err);
	free(err);
	remove_tree(outside);
	free(outside);
	free(site);
	free(full);
	free(log);
	remove_tree(dir);
	free(dir);
}

/* A page too big to be read into one buffer is streamed, and still gets
 * the script just before its last "</body>" (any case), wherever the tag
 * falls against the blocks the end is searched in, or at its end when
 * it has none. */
static void a_streamed_page_gets_the_script_before_its_last_body_tag(void **state)
{
	(void)state;
	char *dir = served_dir();
	enum { SIZE = 200000, BLOCK = 64 * 1024, TAG = 7 };
	struct response small = http("GET", "/r/", NULL);
	const char *open_ = strstr(small.body, "<script>(function(){var es=");
	assert_non_null(open_);
	const char *close_ = strstr(open_, "</script>\n");
	assert_non_null(close_);
	char *script = xstrndup(open_, (size_t)(close_ + strlen("</script>\n") - open_));
	response_free(&small);
	char *page = xmalloc(SIZE + 1);
	/* at a block's edge from the end, and elsewhere */
	long where[24];
	size_t nw = 0;
	for (long d = -10; d <= 10; d++)
		where[nw++] = SIZE - BLOCK - TAG + d;
	where[nw++] = 3;
	where[nw++] = SIZE - TAG;
	where[nw++] = -1; /* none */
	for (size_t i = 0; i < nw; i++) {
		memset(page, 'x', SIZE);
		page[SIZE] = '\0';
		if (where[i] >= 0) {
			memcpy(page + where[i], "</BoDy>", TAG);
			if (where[i] > 100)
				memcpy(page + 5, "</body>", TAG); /* an earlier one */
		}
		e2e_write(dir, "big.html", page);
		struct response r = http("GET", "/big.html", NULL);
		assert_int_equal(r.status, 200);
		size_t at = where[i] >= 0 ? (size_t)where[i] : SIZE;
		struct buf want = BUF_INIT;
		buf_put(&want, page, at);
		buf_puts(&want, script);
		buf_put(&want, page + at, SIZE - at);
		if (r.body_len != want.len || memcmp(r.body, want.data, want.len) != 0)
			fail_msg("the tag at %ld: the script is not just before it", where[i]);
		buf_free(&want);
		response_free(&r);
	}
	char *big = path_join(dir, "big.html");
	unlink(big);
	free(big);
	free(page);
	free(script);
	free(dir);
}

/* --- under load, and against what is planted in the output --- */

#define IDLE_SECS 10 /* serve.c's */

/* Raises this process's descriptor limit to at least n; false when its
 * hard limit is lower. */
static bool fds_at_least(rlim_t n)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return false;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < n) {
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < n)
			return false;
		rl.rlim_cur = n;
		return setrlimit(RLIMIT_NOFILE, &rl) == 0;
	}
	return true;
}

/* How many of the n sockets the server has closed (readable: EOF, or
 * an error), waiting up to ms for the first. */
static size_t closed_by_server(const int *fds, size_t n, int ms)
{
	struct pollfd *p = xcalloc(n, sizeof *p);
	for (size_t i = 0; i < n; i++) {
		p[i].fd = fds[i];
		p[i].events = POLLIN;
	}
	size_t closed = 0;
	if (poll(p, (nfds_t)n, ms) > 0)
		for (size_t i = 0; i < n; i++)
			closed += (p[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
	free(p);
	return closed;
}

/* 1,100 requests sent half-way and left there (more than select()'s
 * 1,024 descriptors): all are held, a page is still answered at once,
 * and the idle ones are closed after IDLE_SECS.  (With one thread per
 * connection and select(), the ones past 1,020 were refused, and a slow
 * client held a thread each.) */
static void half_open_requests_do_not_keep_a_page_waiting(void **state)
{
	(void)state;
	enum { N = 1100 };
	/* ours, plus what serve keeps for its builds (it raises its own
	 * limit the same way, to what the hard limit allows) */
	if (!fds_at_least(N + 512 + 64)) {
		print_message("[  SKIP    ] the descriptor limit cannot be raised to %d: the load "
			      "is not tried\n",
			      N + 512 + 64);
		skip();
	}
	int *fds = xcalloc(N, sizeof *fds);
	for (size_t i = 0; i < N; i++) {
		fds[i] = connect_server();
		send_all(fds[i], "GET /r/ HTTP/1.1\r\nHost: 127.0.0.1\r\n");
	}
	/* all accepted and kept, none refused */
	sleep_ms(300);
	assert_int_equal(closed_by_server(fds, N, 0), 0);

	long start = now_ms();
	struct response r = http("GET", "/r/", NULL);
	long took = now_ms() - start;
	assert_int_equal(r.status, 200);
	assert_contains(r.body, "Final loss");
	response_free(&r);
	print_message("           a page behind %d half-open requests: %ld ms\n", N, took);
	if (took > 1000 * slow())
		fail_msg("a page took %ld ms behind %d half-open requests", took, N);

	/* the idle ones are closed after IDLE_SECS, not kept for ever */
	long deadline = now_ms() + (IDLE_SECS + 6) * 1000L * slow();
	size_t closed = 0;
	while (closed < N && now_ms() < deadline) {
		sleep_ms(250);
		closed = closed_by_server(fds, N, 0);
	}
	if (closed < N)
		fail_msg("%zu of %d half-open requests still open after %d s", N - closed, N,
			 IDLE_SECS + 6);
	for (size_t i = 0; i < N; i++)
		close(fds[i]);
	free(fds);
	/* the server still answers, and said nothing about them */
	r = http("GET", "/r/", NULL);
	assert_int_equal(r.status, 200);
	response_free(&r);
	char *err = e2e_read("/", errfile);
	assert_not_contains(err, "logdown: http:");
	free(err);
}

/* Starts `logdown serve DIR --port 0` with its descriptor limit (soft
 * and hard) set to nofile, so that it cannot raise it. */
static bool spawn_serve_limited(const char *dir, const char *err, rlim_t nofile, pid_t *pid,
				unsigned *port_out)
{
	*pid = fork();
	if (*pid < 0)
		return false;
	if (*pid == 0) {
		struct rlimit rl = {nofile, nofile};
		int in = open("/dev/null", O_RDONLY), out = open("/dev/null", O_WRONLY);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || in < 0 || out < 0 || e < 0 ||
		    dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		execl(e2e_binary(), e2e_binary(), "serve", dir, "--port", "0", (char *)NULL);
		_exit(127);
	}
	long deadline = now_ms() + 20000 * slow();
	while (now_ms() < deadline) {
		char *text = e2e_read("/", err);
		const char *p = text ? strstr(text, "at http://127.0.0.1:") : NULL;
		if (p && strchr(p, '\n')) {
			*port_out = 0;
			sscanf(p, "at http://127.0.0.1:%u/", port_out);
			free(text);
			return *port_out != 0;
		}
		free(text);
		sleep_ms(50);
	}
	return false;
}

/* A connection from 127.0.0.2 (another address), half a request sent. */
static int connect_from_other_address(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	struct sockaddr_in from = {0};
	from.sin_family = AF_INET;
	from.sin_addr.s_addr = htonl(0x7f000002);
	assert_int_equal(bind(fd, (struct sockaddr *)&from, sizeof from), 0);
	struct sockaddr_in sa = {0};
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	send_all(fd, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n");
	return fd;
}

/* One address cannot take every connection: with 1,024 descriptors
 * serve takes 512 connections (512 kept for its builds), at most 384
 * from one address; 600 from another address (more than all 512) leave
 * the browser's own requests answered at once. */
static void one_address_cannot_take_every_connection(void **state)
{
	(void)state;
	enum { N = 600, PER_IP = (1024 - 512) / 4 * 3 };
	if (!fds_at_least(N + 64)) {
		print_message("[  SKIP    ] the descriptor limit cannot be raised to %d\n", N + 64);
		skip();
	}
	char *dir = e2e_tmpdir();
	e2e_write(dir, "content/a/index.md", "---\ntitle: A\n---\nHello.\n");
	char *err = xasprintf("%s.err", dir);
	pid_t pid;
	unsigned keep = port;
	assert_true(spawn_serve_limited(dir, err, 1024, &pid, &port));
	int *fds = xcalloc(N, sizeof *fds);
	for (size_t i = 0; i < N; i++)
		fds[i] = connect_from_other_address();
	sleep_ms(300 * slow());
	size_t closed = closed_by_server(fds, N, 0);
	long start = now_ms();
	struct response r = http("GET", "/a/", NULL);
	long took = now_ms() - start;
	port = keep;
	assert_int_equal(r.status, 200);
	assert_contains(r.body, "Hello.");
	response_free(&r);
	for (size_t i = 0; i < N; i++)
		close(fds[i]);
	free(fds);
	kill(pid, SIGTERM);
	assert_int_equal(child_wait(pid, 5000), 0);
	print_message("           %zu of %d connections from one address refused; a page in %ld "
		      "ms\n",
		      closed, N, took);
	/* at least those past one address's share (valgrind keeps a few
	 * descriptors of its own, which lowers serve's limits a little),
	 * where the limit on all connections alone would refuse 88 */
	if (closed < N - PER_IP || closed == N)
		fail_msg("%zu of %d connections from one address refused, expected %d or more", closed,
			 N, N - PER_IP);
	if (took > 1000 * slow())
		fail_msg("a page took %ld ms", took);
	unlink(err);
	free(err);
	remove_tree(dir);
	free(dir);
}

/* A FIFO planted in the output as a page, a file, or a folder's
 * index.html is refused at once and never opened (inotify sees every
 * open): opening one for reading would block, and a device could act on
 * being opened. */
static void a_fifo_in_the_output_is_never_opened(void **state)
{
	(void)state;
	char *dir = served_dir();
	static const char *const planted[] = {"r/pipe.html", "pipe.txt", "d/index.html"};
	static const char *const urls[] = {"/r/pipe.html", "/pipe.txt", "/d/"};
	char *d = path_join(dir, "d");
	assert_int_equal(mkdir(d, 0755), 0);
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	assert_true(in >= 0);
	char *paths[ARRAY_LEN(planted)];
	for (size_t i = 0; i < ARRAY_LEN(planted); i++) {
		paths[i] = path_join(dir, planted[i]);
		assert_int_equal(mkfifo(paths[i], 0644), 0);
		assert_true(inotify_add_watch(in, paths[i], IN_OPEN) >= 0);
	}
	for (size_t i = 0; i < ARRAY_LEN(urls); i++) {
		long start = now_ms();
		struct response r = http("GET", urls[i], NULL);
		long took = now_ms() - start;
		if (r.status != 403)
			fail_msg("GET %s: status %d, expected 403", urls[i], r.status);
		if (took > 1000 * slow())
			fail_msg("GET %s took %ld ms", urls[i], took);
		response_free(&r);
	}
	char ev[4096];
	ssize_t n = read(in, ev, sizeof ev);
	if (n > 0)
		fail_msg("serve opened a FIFO planted in the output");
	assert_int_equal(errno, EAGAIN);
	close(in);
	for (size_t i = 0; i < ARRAY_LEN(planted); i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	rmdir(d);
	free(d);
	free(dir);
}

/* Waits for the stream to say event, then returns what the server wrote
 * to stderr since before (caller frees). */
static char *after_event(int ev, struct buf *acc, const char *event, const char *before)
{
	if (!events_wait(ev, acc, event, 5000))
		fail_msg("no '%s'; the stream had:\n%s", event, buf_data(acc));
	char *now = e2e_read("/", errfile);
	char *since = xstrdup(now + strlen(before));
	free(now);
	return since;
}

/* The output folder removed: built again at once, the same pages.
 * Replaced by a symbolic link (to a folder that even has logdown's
 * marker): the link is never followed nor built through, and the last
 * good site goes on being served from the folder serve holds open. */
static void the_output_folder_removed_or_replaced_by_a_link(void **state)
{
	(void)state;
	char *dir = served_dir();
	int ev = events_open();
	struct buf acc = BUF_INIT;
	assert_true(events_wait(ev, &acc, "retry:", 5000));
	struct response good = http("GET", "/r/", NULL);
	assert_int_equal(good.status, 200);

	char *before = e2e_read("/", errfile);
	assert_true(remove_tree(dir));
	char *since = after_event(ev, &acc, "event: reload\n", before);
	assert_contains(since, "logdown: the output folder changed; rebuilding\n");
	free(since);
	struct response r = http("GET", "/r/", NULL);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, good.body);
	response_free(&r);

	char *away = xasprintf("%s.away", dir);
	assert_int_equal(rename(dir, away), 0);
	char *evil = e2e_tmpdir();
	e2e_write(evil, ".logdown-site", "not this one\n");
	e2e_write(evil, "index.html", "SECRET\n");
	e2e_write(evil, "r/index.html", "SECRET\n");
	assert_int_equal(symlink(evil, dir), 0);
	free(before);
	before = e2e_read("/", errfile);
	buf_clear(&acc);
	since = after_event(ev, &acc, "is now a symbolic link", before);
	char *want = xasprintf("logdown: error: the output folder %s is now a symbolic link: serve "
			       "does not build through it, and keeps serving the last good site "
			       "(remove the link to build again)\n",
			       dir);
	assert_contains(since, want);
	free(want);
	free(since);
	static const char *const pages[] = {"/r/", "/", "/static/logdown.css"};
	for (size_t i = 0; i < ARRAY_LEN(pages); i++) {
		r = http("GET", pages[i], NULL);
		assert_int_equal(r.status, 200);
		assert_not_contains(r.body, "SECRET");
		if (i == 0)
			assert_string_equal(r.body, good.body);
		response_free(&r);
	}
	/* a change to a source: still not built through the link */
	write_log("2.22222");
	sleep_ms(1500);
	char *text = e2e_read("/", errfile);
	assert_not_contains(text + strlen(before), "rebuilt");
	free(text);
	size_t n;
	char **names = dir_list(evil, &n);
	assert_int_equal(n, 3);
	strv_free(names);
	char *page = e2e_read(evil, "r/index.html");
	assert_string_equal(page, "SECRET\n");
	free(page);

	/* the link gone: built again */
	buf_clear(&acc);
	assert_int_equal(unlink(dir), 0);
	if (!events_wait(ev, &acc, "event: reload\n", 5000))
		fail_msg("no reload once the link went; the stream had:\n%s", buf_data(&acc));
	r = http("GET", "/r/", NULL);
	assert_int_equal(r.status, 200);
	assert_contains(r.body, "2.22222");
	response_free(&r);
	assert_same_as_a_full_build();

	remove_tree(away);
	remove_tree(evil);
	free(away);
	free(evil);
	free(before);
	response_free(&good);
	buf_free(&acc);
	close(ev);
	free(dir);
}

/* The line "key" of pid's /proc status, in KB; -1 if unknown. */
static long status_kb(pid_t pid, const char *key)
{
	char *path = xasprintf("/proc/%ld/status", (long)pid);
	char *text = e2e_read("/", path);
	free(path);
	const char *p = text ? strstr(text, key) : NULL;
	long kb = p ? atol(p + strlen(key)) : -1;
	free(text);
	return kb;
}

/* The peak resident memory of pid in KB (VmHWM), -1 if unknown. */
static long peak_kb(pid_t pid)
{
	return status_kb(pid, "VmHWM:");
}

/* A big page fetched by 8 clients at once: streamed from its file with
 * the script spliced in, so serve's memory does not grow with the page
 * (it read the page whole and copied it, twice a request: a 337 MB page
 * to 8 clients took gigabytes).  The release binary, for its memory;
 * LOGDOWN_TEST_PAGE_MB sets the page's size (docs/performance.md has the
 * 337 MB run). */
static void a_big_page_to_eight_clients_streams_in_bounded_memory(void **state)
{
	(void)state;
	const char *rel = bounded_release_or_skip();
	const char *mb_env = getenv("LOGDOWN_TEST_PAGE_MB");
	size_t mb = mb_env ? (size_t)atol(mb_env) : 64;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "content/a/index.md", "---\ntitle: A\n---\nHello.\n");
	char *err = xasprintf("%s.err", dir);
	pid_t pid;
	unsigned big_port;
	assert_true(spawn_serve(rel, dir, err, &pid, &big_port));

	/* the page, written into the output after the build */
	char *page = path_join(dir, "_site/big.html");
	FILE *f = fopen(page, "w");
	assert_non_null(f);
	fputs("<!doctype html>\n<html><body>\n", f);
	static const char line[] = "<p>0123456789 abcdefghij klmnopqrst uvwxyz 0123456789 ABCDEF</p>\n";
	for (size_t i = 0; i < mb * 1024 * 1024 / (sizeof line - 1); i++)
		fputs(line, f);
	fputs("</body></html>\n", f);
	assert_int_equal(fclose(f), 0);
	struct stat st;
	assert_int_equal(stat(page, &st), 0);

	/* the size of the page with the script, from a HEAD */
	unsigned keep = port;
	port = big_port;
	struct response h = http("HEAD", "/big.html", NULL);
	assert_int_equal(h.status, 200);
	char *len = header(&h, "Content-Length");
	assert_non_null(len);
	unsigned long long want = strtoull(len, NULL, 10);
	assert_true(want > (unsigned long long)st.st_size);
	free(len);
	response_free(&h);

	/* the peak so far is forgotten (clear_refs 5), then 8 at once */
	char *clear = xasprintf("/proc/%ld/clear_refs", (long)pid);
	FILE *c = fopen(clear, "w");
	bool cleared = c && fputs("5", c) >= 0;
	if (c && fclose(c) != 0)
		cleared = false;
	free(clear);
	long base = peak_kb(pid);
	enum { CLIENTS = 8 };
	int fds[CLIENTS];
	unsigned long long got[CLIENTS] = {0};
	char tails[CLIENTS][64];
	struct pollfd p[CLIENTS];
	for (int i = 0; i < CLIENTS; i++) {
		fds[i] = connect_server();
		send_all(fds[i], "GET /big.html HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
		p[i].fd = fds[i];
		p[i].events = POLLIN;
		tails[i][0] = '\0';
	}
	port = keep;
	static char chunk[256 * 1024];
	int open_ = CLIENTS;
	long deadline = now_ms() + 120000;
	while (open_ > 0 && now_ms() < deadline) {
		if (poll(p, CLIENTS, 1000) <= 0)
			continue;
		for (int i = 0; i < CLIENTS; i++) {
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(p[i].fd, chunk, sizeof chunk);
			if (n <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
				open_--;
				continue;
			}
			got[i] += (unsigned long long)n;
			/* the last 63 bytes seen */
			size_t t = strlen(tails[i]);
			char both[64 + sizeof chunk];
			memcpy(both, tails[i], t);
			memcpy(both + t, chunk, (size_t)n);
			size_t all = t + (size_t)n, keepn = all < 63 ? all : 63;
			memcpy(tails[i], both + all - keepn, keepn);
			tails[i][keepn] = '\0';
		}
	}
	long peak = peak_kb(pid);
	kill(pid, SIGTERM);
	assert_int_equal(child_wait(pid, 5000), 0);
	for (int i = 0; i < CLIENTS; i++) {
		/* each got the headers and the whole page with the script */
		if (got[i] < want || got[i] > want + 1024)
			fail_msg("client %d got %llu bytes for a body of %llu", i, got[i], want);
		if (!str_has_suffix(tails[i], "</script>\n</body></html>\n"))
			fail_msg("client %d's page ends with: %s", i, tails[i]);
	}
	print_message("           %zu MB page to %d clients: serve's peak %ld KB (%ld KB before)\n",
		      mb, CLIENTS, peak, base);
	if (peak > 100 * 1024)
		fail_msg("serve's peak memory was %ld KB", peak);
	if (cleared && peak - base > (long)(st.st_size / 1024 / 4))
		fail_msg("serve's memory grew by %ld KB for a page of %lld KB", peak - base,
			 (long long)st.st_size / 1024);
	unlink(err);
	free(err);
	free(page);
	remove_tree(dir);
	free(dir);
}

/* serve lives on after its first build: what that build freed goes back
 * to the system (malloc_trim()), and the run it parsed and stored is
 * read from the store, not held in memory.  A log of 2,500,000 rows, a
 * report with a mean and a chart of it; the release binary.  Measured:
 * 229 MB at the peak, 9 MB anonymous held after; without the trim, 22 MB
 * (and 235 MB for the 1 GB log). */
static void serve_gives_back_what_its_first_build_freed(void **state)
{
	(void)state;
	const char *rel = bounded_release_or_skip();
	char *dir = e2e_tmpdir();
	e2e_write(dir, "content/r/index.md",
		  "---\ntitle: R\nruns:\n  cs: {file: run.log, parser: cerebras}\n---\nMean "
		  "{{ mean(cs.train.rate) :.2f }}.\n\n```{chart}\ntype: line\nseries: cs\nx: "
		  "train.step\ny: train.loss\n```\n");
	char *log = path_join(dir, "content/r/run.log");
	FILE *f = fopen(log, "w");
	assert_non_null(f);
	fputs("Effective batch size is 512.\n", f);
	for (long i = 1; i <= 2500000; i++)
		fprintf(f, "| Train Device=CSX, Step=%ld, Loss=%.5f, Rate=%.2f samples/sec\n", i,
			1.0 / (1.0 + (double)i * 1e-4), 2900.0 + (double)(i % 97));
	assert_int_equal(fclose(f), 0);
	char *err = xasprintf("%s.err", dir);
	pid_t pid;
	unsigned own_port;
	assert_true(spawn_serve(rel, dir, err, &pid, &own_port));
	long peak = peak_kb(pid), held = status_kb(pid, "RssAnon:");
	kill(pid, SIGTERM);
	assert_int_equal(child_wait(pid, 5000), 0);
	print_message("           serve after its first build: peak %ld KB, %ld KB anonymous "
		      "held\n",
		      peak, held);
	if (held < 0 || held > 14 * 1024 || held * 8 > peak)
		fail_msg("serve holds %ld KB after a build whose peak was %ld KB", held, peak);
	unlink(err);
	free(err);
	free(log);
	remove_tree(dir);
	free(dir);
}

/* A page that exists before and after a rebuild is served all through
 * it: the output's report folders move while the new site is swapped in
 * (outdir_commit()), and a request that finds one missing then waits for
 * the build's end instead of getting a 404.  150 reports (149 folders
 * move), one log changed five times, a page of another read in a loop
 * meanwhile. */
static void a_page_never_goes_missing_while_serve_rebuilds(void **state)
{
	(void)state;
	enum { REPORTS = 150 };
	char *dir = e2e_tmpdir();
	for (int i = 0; i < REPORTS; i++) {
		char *rel = xasprintf("content/r%d/index.md", i);
		char *md = xasprintf("---\ntitle: R%d\nruns:\n  cs: run.log\n---\nLoss {{ cs.final_loss "
				     "}}.\n",
				     i);
		e2e_write(dir, rel, md);
		free(rel);
		free(md);
		rel = xasprintf("content/r%d/run.log", i);
		e2e_copy(dir, rel, FIXTURE_LOG);
		free(rel);
	}
	char *err = xasprintf("%s.err", dir);
	pid_t pid;
	unsigned keep = port;
	assert_true(spawn_serve(e2e_binary(), dir, err, &pid, &port));
	char *log = path_join(dir, "content/r1/run.log");
	size_t ok = 0, bad = 0;
	int last = 0;
	for (int k = 0; k < 5; k++) {
		FILE *f = fopen(log, "a");
		assert_non_null(f);
		fprintf(f, "appended %d\n", k);
		fclose(f);
		long until = now_ms() + 1000 * slow();
		while (now_ms() < until) {
			struct response r = http("GET", "/r5/", NULL);
			if (r.status == 200)
				ok++;
			else {
				bad++;
				last = r.status;
			}
			response_free(&r);
		}
	}
	char *text = e2e_read("/", err);
	size_t rebuilds = 0;
	for (const char *p = text; (p = strstr(p, "logdown: rebuilt")); p++)
		rebuilds++;
	free(text);
	port = keep;
	kill(pid, SIGTERM);
	assert_int_equal(child_wait(pid, 5000), 0);
	print_message("           %zu requests during %zu rebuilds, %zu not 200\n", ok + bad,
		      rebuilds, bad);
	if (bad)
		fail_msg("%zu of %zu requests for a page got %d while serve rebuilt", bad, ok + bad,
			 last);
	assert_true(rebuilds >= 2);
	unlink(err);
	free(err);
	free(log);
	remove_tree(dir);
	free(dir);
}

/* A running job's log line at `step` (the Cerebras parser's form). */
static void put_train_line(FILE *f, long step)
{
	fprintf(f,
		"2024-03-30 15:16:33,873 INFO:   | Train Device=CSX, Step=%ld, Loss=%.5f, "
		"Rate=%ld.%02ld samples/sec, GlobalRate=2983.97 samples/sec\n",
		step, 9.0 - (double)(step % 997) / 200.0, 2900 + step % 89, step % 100);
}

/* How many times `what` occurs in the file at path. */
static size_t times_in(const char *path, const char *what)
{
	char *text = e2e_read("/", path);
	size_t n = 0;
	for (const char *p = text; p && (p = strstr(p, what)); p++)
		n++;
	free(text);
	return n;
}

/* Waits (10 s at most) until the file at path says `what` n times (a
 * file not there yet says nothing). */
static bool wait_times_in(const char *path, const char *what, size_t n)
{
	long until = now_ms() + 10000 * slow();
	while (now_ms() < until) {
		if (times_in(path, what) >= n)
			return true;
		sleep_ms(50);
	}
	return false;
}

/* serve rebuilds a grown log of several proof pieces (1 MiB here,
 * LOGDOWN_TEST_PIECE) on the proof's word (cache_speculate()); in its
 * first such rebuild a byte of an old piece is changed before the check
 * reads it (LOGDOWN_TEST_WRITE_SPECULATING).  The check fails, and the
 * rebuild is thrown away and made again in the same process: one
 * "rebuilt" line for it, and the page is a --no-cache build's.  The next append
 * is proved and rebuilt on the proof's word as usual, its page a
 * --no-cache build's too. */
static void a_proof_that_fails_in_serve_is_built_again_in_place(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "content/r/index.md",
		  "---\ntitle: R\nruns:\n  cs: {file: job.log, parser: cerebras}\n---\n"
		  "Loss {{ cs.final_loss }} at step {{ cs.final_step }}, mean rate "
		  "{{ mean(cs.train.rate) }}.\n");
	char *log = path_join(dir, "content/r/job.log");
	FILE *f = fopen(log, "w");
	assert_non_null(f);
	fputs("2024-03-30 15:16:00,001 INFO:   Effective batch size is 512.\n", f);
	for (long step = 100; step <= 4400000; step += 100)
		put_train_line(f, step);
	fclose(f);
	/* a loss's digit in the third piece, flipped to another digit */
	char *text = e2e_read("/", log);
	const char *l = strstr(text + (2 << 20), "Loss=");
	assert_non_null(l);
	char *at = xasprintf("%ld", (long)(l + 5 - text));
	free(text);
	char *err = xasprintf("%s.err", dir);
	setenv("LOGDOWN_TEST_PIECE", "1048576", 1);
	setenv("LOGDOWN_TEST_SAY_PROOF", "1", 1);
	setenv("LOGDOWN_TEST_WRITE_SPECULATING", at, 1);
	pid_t pid;
	unsigned keep = port;
	bool started = spawn_serve(e2e_binary(), dir, err, &pid, &port);
	unsetenv("LOGDOWN_TEST_PIECE");
	unsetenv("LOGDOWN_TEST_SAY_PROOF");
	unsetenv("LOGDOWN_TEST_WRITE_SPECULATING");
	assert_true(started);
	other_server = pid;
	static const char *const proofs[] = {"a proof of 6 pieces failed", "a proof of 6 pieces held"};
	for (int k = 0; k < 2; k++) {
		f = fopen(log, "a");
		assert_non_null(f);
		put_train_line(f, 4400100 + 100 * (long)k);
		fclose(f);
		char *page = path_join(dir, "_site/r/index.html");
		char *step = xasprintf(">%ld</a>,", 4400100 + 100 * (long)k);
		if (!wait_times_in(page, step, 1))
			fail_msg("no rebuild after append %d:\n%s", k, e2e_keep(e2e_read("/", err)));
		free(step);
		free(page);
		assert_true(times_in(err, proofs[k]) >= 1);
		struct proc b = e2e_run("/", "build --no-cache '%s' -o '%s.fresh'", dir, dir);
		assert_int_equal(b.status, 0);
		proc_free(&b);
		char *fresh = xasprintf("%s.fresh", dir);
		char *want = e2e_read(fresh, "r/index.html");
		char *got = e2e_read(dir, "_site/r/index.html");
		assert_string_equal(e2e_keep(e2e_page_body(got)), e2e_keep(e2e_page_body(want)));
		free(got);
		free(want);
		remove_tree(fresh);
		free(fresh);
	}
	/* the thrown build said nothing: one line for each rebuild (the
	 * flipped byte is a change of its own, rebuilt after the first) */
	if (times_in(err, "logdown: rebuilt") != times_in(err, "; rebuilding\n"))
		fail_msg("%s", e2e_keep(e2e_read("/", err)));
	port = keep;
	kill(pid, SIGTERM);
	assert_int_equal(child_wait(pid, 5000), 0);
	other_server = -1;
	unlink(err);
	free(err);
	free(at);
	free(log);
	remove_tree(dir);
	free(dir);
}

/* What makes a rebuild slow, and how it is undone. */
struct slow_input {
	const char *what;
	void (*make)(void);
	void (*undo)(void);
};

/* site.yaml made a FIFO: the build blocks opening it. */
static void fifo_yaml(void)
{
	char *yaml = path_join(project, "site.yaml");
	unlink(yaml);
	assert_int_equal(mkfifo(yaml, 0644), 0);
	free(yaml);
}

static void fifo_yaml_undo(void)
{
	char *yaml = path_join(project, "site.yaml");
	unlink(yaml);
	free(yaml);
	e2e_write(project, "site.yaml", "title: Served site\n");
}

/* The report's log made 200 MB of training lines (by rename, as a job
 * saves it): the rebuild hashes and parses it for seconds. */
static void huge_log(void)
{
	char *text = e2e_read(".", FIXTURE_LOG);
	assert_non_null(text);
	struct buf lines = BUF_INIT;
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);
		if (strstr(line, "Loss="))
			buf_put(&lines, p, n + (p[n] == '\n'));
		free(line);
		p += n + (p[n] == '\n');
	}
	assert_true(lines.len > 0);
	char *tmp = path_join(project, "results/run.log.tmp");
	FILE *f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	for (size_t done = 0; done < 200u << 20; done += lines.len)
		fwrite(lines.data, 1, lines.len, f);
	assert_int_equal(fclose(f), 0);
	char *to = path_join(project, "results/run.log");
	assert_int_equal(rename(tmp, to), 0);
	free(to);
	free(tmp);
	buf_free(&lines);
	free(text);
}

static void huge_log_undo(void)
{
	write_log(OLD_LOSS);
}

/* SIGTERM while a rebuild is busy with a slow input, and a storm of
 * SIGTERM and SIGINT after it: serve ends within a second, with exit 0,
 * and nothing is left over. */
static void stop_during_a_rebuild(const struct slow_input *in)
{
	assert_true(server < 0);
	assert_true(server_start());
	char *before = e2e_read("/", errfile);
	in->make();
	long deadline = now_ms() + 5000 * slow();
	char *text = NULL;
	const char *at = NULL;
	while (now_ms() < deadline) {
		free(text);
		text = e2e_read("/", errfile);
		if ((at = strstr(text + strlen(before), "rebuilding\n")))
			break;
		sleep_ms(20);
	}
	if (!at)
		fail_msg("no rebuild started; serve said:\n%s", text);
	sleep_ms(100);
	free(text);
	text = e2e_read("/", errfile);
	at = strstr(text + strlen(before), "rebuilding\n");
	bool busy = !strstr(at, "logdown: rebuilt") && !strstr(at, "error");
	free(text);

	assert_int_equal(kill(server, SIGTERM), 0);
	long start = now_ms();
	pid_t pid = server;
	for (int i = 0; i < 20; i++) {
		kill(pid, i % 2 ? SIGINT : SIGTERM);
		sleep_ms(10);
	}
	int status = server_wait(5000);
	long took = now_ms() - start;
	text = e2e_read("/", errfile);
	/* still building when serve stopped */
	busy = busy && strstr(text + strlen(before), "logdown: stopped during a rebuild");
	free(text);
	in->undo();
	if (!busy) {
		print_message("[  SKIP    ] the rebuild with %s ended before serve stopped: this "
			      "case needs a slower input\n",
			      in->what);
		skip();
	}
	assert_int_equal(status, 0);
	print_message("           %s: stopped %ld ms after SIGTERM during the rebuild\n", in->what,
		      took);
	if (took > 1000 * slow())
		fail_msg("serve took %ld ms to stop during a rebuild", took);

	/* what the dropped build had begun (its staging folder) is swept
	 * once serve is gone, by the child it left for that; the site is
	 * as the last good build left it */
	deadline = now_ms() + 3000 * slow();
	char *left = NULL;
	do {
		free(left);
		left = NULL;
		size_t n;
		char **names = dir_list(project, &n);
		assert_non_null(names);
		for (size_t i = 0; i < n && !left; i++)
			if (names[i][0] == '.' && strcmp(names[i], ".logdown-cache") != 0 &&
			    strcmp(names[i], "._site.lock") != 0)
				left = xstrdup(names[i]);
		strv_free(names);
		if (left)
			sleep_ms(20);
	} while (left && now_ms() < deadline);
	if (left)
		fail_msg("left behind: %s", left);
	char *page = e2e_read(project, "_site/r/index.html");
	assert_non_null(page);
	assert_contains(page, "Final loss");
	free(page);
	free(before);
}

/* The build blocks opening a FIFO site.yaml (the build cache opens it
 * without O_NONBLOCK: a build that stops blocking skips this case). */
static void sigterm_stops_serve_within_a_second_even_during_a_rebuild(void **state)
{
	(void)state;
	static const struct slow_input fifo = {"a FIFO site.yaml", fifo_yaml, fifo_yaml_undo};
	stop_during_a_rebuild(&fifo);
}

static void sigterm_stops_serve_while_a_rebuild_parses_a_huge_log(void **state)
{
	(void)state;
	static const struct slow_input big = {"a 200 MB log", huge_log, huge_log_undo};
	stop_during_a_rebuild(&big);
}

int main(void)
{
	/* Whatever goes wrong, CI is not held up. */
	alarm((unsigned)(120 * slow()));
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_first_line_says_what_was_built_and_where),
		cmocka_unit_test(a_browser_closing_a_connection_is_not_an_error),
		cmocka_unit_test(pages_are_served_with_the_live_script),
		cmocka_unit_test(a_folder_without_its_slash_redirects),
		cmocka_unit_test(head_has_headers_and_no_body),
		cmocka_unit_test(other_methods_are_405_with_allow),
		cmocka_unit_test(missing_files_and_folders_are_404),
		cmocka_unit_test(nothing_outside_the_output_is_served),
		cmocka_unit_test(etag_then_if_none_match_is_304),
		cmocka_unit_test(a_changed_log_rebuilds_and_reloads_within_2s),
		cmocka_unit_test(a_failed_rebuild_shows_errors_and_keeps_the_page),
		cmocka_unit_test(a_burst_of_changes_gives_one_build),
		cmocka_unit_test(a_change_rebuilds_only_the_reports_it_affects),
		cmocka_unit_test(nothing_planted_in_the_previous_output_is_carried_by_a_rebuild),
		cmocka_unit_test(without_the_cache_nothing_planted_is_carried_by_a_rebuild),
		cmocka_unit_test(a_streamed_page_gets_the_script_before_its_last_body_tag),
		cmocka_unit_test(a_fifo_in_the_output_is_never_opened),
		cmocka_unit_test(the_output_folder_removed_or_replaced_by_a_link),
		cmocka_unit_test(half_open_requests_do_not_keep_a_page_waiting),
		cmocka_unit_test(one_address_cannot_take_every_connection),
		cmocka_unit_test(a_big_page_to_eight_clients_streams_in_bounded_memory),
		cmocka_unit_test(serve_gives_back_what_its_first_build_freed),
		cmocka_unit_test(a_page_never_goes_missing_while_serve_rebuilds),
		cmocka_unit_test(a_port_in_use_is_exit_3),
		cmocka_unit_test(serve_without_libmicrohttpd_says_what_to_install),
		cmocka_unit_test(a_bad_host_is_a_usage_error),
		cmocka_unit_test(sigterm_stops_with_0_and_leaves_nothing),
		cmocka_unit_test(a_first_build_that_fails_is_served_and_recovers),
		cmocka_unit_test(a_save_wakes_serve_without_waiting_for_the_poll),
		cmocka_unit_test(sigterm_stops_serve_within_a_second_even_during_a_rebuild),
		cmocka_unit_test(sigterm_stops_serve_while_a_rebuild_parses_a_huge_log),
		cmocka_unit_test(a_proof_that_fails_in_serve_is_built_again_in_place),
	};
	e2e_test_filter();
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
