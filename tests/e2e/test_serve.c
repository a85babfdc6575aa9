/* test_serve.c: `logdown serve` over real sockets.
 *
 * One server runs for the group: started on a free port with its
 * stderr in a file, spoken to with a tiny HTTP/1.0 client, stopped
 * with SIGTERM by the last test.  Every wait is bounded (socket
 * timeouts, deadlines, and an alarm over the whole run), so a bug can
 * fail the tests but never hang CI. */
#include "e2e.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <time.h>

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

/* Waits (bounded) for the child to exit; its status as e2e_run gives. */
static int server_wait(long ms)
{
	ms *= slow();
	long deadline = now_ms() + ms;
	int st;
	for (;;) {
		pid_t p = waitpid(server, &st, WNOHANG);
		if (p == server)
			break;
		if (now_ms() > deadline) {
			kill(server, SIGKILL);
			waitpid(server, &st, 0);
			server = -1;
			fail_msg("logdown serve did not stop within %ld ms", ms);
		}
		sleep_ms(20);
	}
	server = -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Starts `logdown serve PROJECT --port 0`, stderr to errfile, and reads
 * its port.  Returns false when it did not start within 20 s. */
static bool server_start(void)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char *argv[] = {(char *)e2e_binary(), (char *)"serve", project, (char *)"--port",
			(char *)"0", NULL};
	if (posix_spawn(&server, argv[0], &fa, NULL, argv, environ) != 0)
		return false;
	posix_spawn_file_actions_destroy(&fa);

	/* The port is in the line "serving DIR at http://127.0.0.1:PORT/". */
	long deadline = now_ms() + 20000 * slow();
	while (now_ms() < deadline) {
		char *err = e2e_read("/", errfile);
		const char *p = err ? strstr(err, "at http://127.0.0.1:") : NULL;
		if (p && strchr(p, '\n')) {
			port = 0;
			sscanf(p, "at http://127.0.0.1:%u/", &port);
			free(err);
			return port != 0;
		}
		free(err);
		sleep_ms(50);
	}
	fprintf(stderr, "logdown serve did not start\n");
	return false;
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

	free(before);
	close(ev);
}

/* A reused report's folder moves from the previous output: a link
 * planted there (logdown writes none) is never followed nor served, and
 * one beside the page is not carried over. */
static void a_link_in_the_previous_output_is_not_copied(void **state)
{
	(void)state;
	int ev = events_open();
	struct buf acc = BUF_INIT;
	assert_true(events_wait(ev, &acc, "retry:", 5000));
	char *dir = served_dir();
	char *inner = xasprintf("%s/s/logs/leak.txt", dir);
	char *top = xasprintf("%s/s/leak.txt", dir);
	assert_int_equal(symlink("/etc/hostname", inner), 0);
	write_log("4.44444");
	if (!events_wait(ev, &acc, "event: reload\n", 10000))
		fail_msg("no reload; the stream had:\n%s", buf_data(&acc));
	struct response r = http("GET", "/s/logs/leak.txt", NULL);
	assert_int_equal(r.status, 403);
	response_free(&r);
	/* beside the page: the folder is copied file by file, without it */
	assert_int_equal(unlink(inner), 0);
	assert_int_equal(symlink("/etc/hostname", top), 0);
	buf_clear(&acc);
	/* written as soon as the reload comes, before serve polls again:
	 * the change must still be seen (serve once took its snapshot
	 * after publishing the build, and missed it now and then) */
	write_log("3.33333");
	if (!events_wait(ev, &acc, "event: reload\n", 10000))
		fail_msg("no reload; the stream had:\n%s", buf_data(&acc));
	r = http("GET", "/s/leak.txt", NULL);
	assert_int_equal(r.status, 404);
	response_free(&r);
	free(inner);
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
	/* the build cache stays, as after `logdown build` */
	for (size_t i = 0; i < n; i++)
		if (names[i][0] == '.' && strcmp(names[i], ".logdown-cache") != 0)
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
		cmocka_unit_test(a_link_in_the_previous_output_is_not_copied),
		cmocka_unit_test(a_port_in_use_is_exit_3),
		cmocka_unit_test(a_bad_host_is_a_usage_error),
		cmocka_unit_test(sigterm_stops_with_0_and_leaves_nothing),
		cmocka_unit_test(a_first_build_that_fails_is_served_and_recovers),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
