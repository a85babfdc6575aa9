/* test_build.c: `logdown build`, `check` and `new` as a user runs them. */
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "e2e.h"

#include <sys/stat.h>

static const char report_ok[] =
	"---\n"
	"title: \"Homework 7: AI accelerators\"\n"
	"author: A. Student\n"
	"date: 2024-04-08\n"
	"summary: Cerebras, SambaNova, Graphcore & Groq.\n"
	"---\n"
	"\n"
	"# Cerebras\n"
	"\n"
	"| Batch size | Final loss |\n"
	"|-----------:|-----------:|\n"
	"| 512        | 7.12500    |\n"
	"\n"
	"- [x] ran it\n"
	"- [ ] ~~plotted it~~\n"
	"\n"
	"See https://example.org for more.\n"
	"\n"
	"<script>alert(1)</script>\n";

/* A project folder with one good report; caller frees and removes. */
static char *project_new(void)
{
	char *dir = e2e_tmpdir();
	e2e_write(dir, "content/hw07/index.md", report_ok);
	return dir;
}

static void project_free(char *dir)
{
	remove_tree(dir);
	free(dir);
}

static void builds_report_page_and_index(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/hw05.md",
		  "---\ntitle: Older\ndate: 2024-03-01\n---\nolder text\n");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 2 reports into _site\n");

	char *page = e2e_read(dir, "_site/hw07/index.html");
	assert_contains(page, "<title>Homework 7: AI accelerators");
	assert_contains(page, "<th align=\"right\">Batch size</th>");
	assert_contains(page, "<td align=\"right\">7.12500</td>");
	assert_contains(page, "<input type=\"checkbox\" checked=\"\" disabled=\"\" /> ran it");
	assert_contains(page, "<del>plotted it</del>");
	assert_contains(page, "<a href=\"https://example.org\">https://example.org</a>");
	/* GitHub's tag filter: raw <script> is neutralised. */
	assert_contains(page, "&lt;script>alert(1)&lt;/script>");
	assert_contains(page, "href=\"../static/logdown.css\"");
	assert_contains(page, "Cerebras, SambaNova, Graphcore &amp; Groq.");

	char *index = e2e_read(dir, "_site/index.html");
	assert_contains(index, "href=\"hw07/index.html\"");
	assert_contains(index, "href=\"hw05/index.html\"");
	/* newest first */
	assert_true(strstr(index, "hw07/") < strstr(index, "hw05/"));
	assert_contains(index, "datetime=\"2024-04-08\"");

	char *css = e2e_read(dir, "_site/static/logdown.css");
	assert_non_null(css);
	char *marker = e2e_read(dir, "_site/.logdown-site");
	assert_non_null(marker);
	free(marker);
	free(css);
	free(index);
	free(page);
	proc_free(&r);
	project_free(dir);
}

static void drafts_are_left_out_unless_asked(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/wip.md", "---\ntitle: Work in progress\ndraft: true\n---\nsoon\n");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err,
			    "logdown: built 1 report (1 draft left out; --drafts includes them) "
			    "into _site\n");
	char *index = e2e_read(dir, "_site/index.html");
	assert_not_contains(index, "Work in progress");
	assert_null(e2e_read(dir, "_site/wip/index.html"));
	proc_free(&r);
	free(index);

	r = e2e_run(dir, "build --drafts");
	assert_int_equal(r.status, 0);
	index = e2e_read(dir, "_site/index.html");
	assert_contains(index, "Work in progress");
	char *page = e2e_read(dir, "_site/wip/index.html");
	assert_contains(page, "Draft");
	free(page);
	free(index);
	proc_free(&r);
	project_free(dir);
}

static void malformed_front_matter_points_at_its_line_in_the_md_file(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/bad.md",
		  "---\ntitle: ok\nauthor: [unclosed\ndate: 2024-01-01\n---\nbody\n");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "content/bad.md:4:5: error: malformed YAML: did not find expected ',' "
			    "or ']'\n"
			    "    4 | date: 2024-01-01\n"
			    "      |     ^\n"
			    "content/bad.md:3:9: note: while parsing a flow sequence (it starts "
			    "here)\n"
			    "    3 | author: [unclosed\n"
			    "      |         ^\n"
			    "logdown: 1 error; the previous output was left as it was\n");
	char *out = path_join(dir, "_site");
	assert_false(path_exists(out));
	free(out);
	proc_free(&r);
	project_free(dir);
}

static void unclosed_front_matter_is_an_error(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/open.md", "---\ntitle: never closed\n\nbody\n");
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "content/open.md:1:1: error: front matter is never closed: end it with "
			    "a line holding only ---\n"
			    "    1 | ---\n"
			    "      | ^~~\n"
			    "logdown: 1 error; nothing was written\n");
	proc_free(&r);
	project_free(dir);
}

static void bad_date_and_draft_are_errors_at_their_values(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/x.md", "---\ndate: 2024-13-01\ndraft: maybe\n---\n");
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 1);
	assert_string_equal(
		r.err,
		"content/x.md:2:7: error: date '2024-13-01' is not a date: write it as YYYY-MM-DD "
		"(a real day), e.g. 2024-04-08\n"
		"    2 | date: 2024-13-01\n"
		"      |       ^~~~~~~~~~\n"
		"content/x.md:3:8: error: 'draft' must be true or false\n"
		"    3 | draft: maybe\n"
		"      |        ^~~~~\n"
		"logdown: 2 errors; nothing was written\n");
	proc_free(&r);
	project_free(dir);
}

static void unknown_front_matter_key_is_a_warning_with_a_suggestion(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/x.md", "---\ntitel: Typo\n---\ntext\n");
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err,
			    "content/x.md:2:1: warning: unknown front matter key 'titel' (did you "
			    "mean 'title'?)\n"
			    "    2 | titel: Typo\n"
			    "      | ^~~~~\n"
			    "logdown: checked 2 reports\n");
	proc_free(&r);
	project_free(dir);
}

static void unknown_site_yaml_key_warns_and_strict_makes_it_fail(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "site.yaml", "title: My site\noutptu: public\n");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err,
			    "site.yaml:2:1: warning: unknown site.yaml key 'outptu' (did you mean "
			    "'output'?)\n"
			    "    2 | outptu: public\n"
			    "      | ^~~~~~\n"
			    "logdown: built 1 report into _site\n");
	char *index = e2e_read(dir, "_site/index.html");
	assert_contains(index, "My site");
	free(index);
	proc_free(&r);

	r = e2e_run(dir, "build --strict");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "site.yaml:2:1: error: unknown site.yaml key 'outptu'");
	proc_free(&r);
	project_free(dir);
}

static void dangling_link_is_an_error_naming_the_file(void **state)
{
	(void)state;
	char *dir = project_new();
	char *link = path_join(dir, "content/gone.md");
	assert_int_equal(symlink("/nonexistent/gone.md", link), 0);
	free(link);
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "content/gone.md: error: a link that leads nowhere: No such file or "
			    "directory\n"
			    "logdown: 1 error; the previous output was left as it was\n");
	proc_free(&r);
	project_free(dir);
}

static void links_stay_inside_the_project_and_never_loop(void **state)
{
	(void)state;
	char *dir = project_new();
	char *outside = e2e_tmpdir();
	e2e_write(outside, "secret.md", "---\ntitle: secret\n---\n");
	e2e_write(outside, "key.png", "secret");
	char *l1 = path_join(dir, "content/ext");
	char *l2 = path_join(dir, "content/loop");
	char *l3 = path_join(dir, "content/hw07/img");
	char *l4 = path_join(dir, "static/leak.png");
	char *key = path_join(outside, "key.png");
	e2e_write(dir, "static/site.css", "p{}");
	assert_int_equal(symlink(outside, l1), 0);
	assert_int_equal(symlink(".", l2), 0);
	assert_int_equal(symlink(outside, l3), 0);
	assert_int_equal(symlink(key, l4), 0);
	/* check finds what build finds */
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 1);
	assert_string_equal(
		r.err,
		"content/ext: error: a link leading outside the project: logdown reads nothing "
		"there (copy what you need into the project)\n"
		"content/hw07/img: error: a link leading outside the project: logdown reads "
		"nothing there (copy what you need into the project)\n"
		"content/loop: error: a link back to a folder that holds it: following it would "
		"loop\n"
		"static/leak.png: error: a link leading outside the project: logdown reads nothing "
		"there (copy what you need into the project)\n"
		"logdown: 4 errors; nothing was written\n");
	proc_free(&r);
	r = e2e_run(dir, "build");
	assert_int_equal(r.status, 1);
	char *site = path_join(dir, "_site");
	assert_false(path_exists(site));
	free(site);
	proc_free(&r);
	free(key);
	free(l1);
	free(l2);
	free(l3);
	free(l4);
	remove_tree(outside);
	free(outside);
	project_free(dir);
}

static void special_files_are_left_out_with_a_warning(void **state)
{
	(void)state;
	char *dir = project_new();
	char *fifo = path_join(dir, "content/pipe.md");
	assert_int_equal(mkfifo(fifo, 0644), 0);
	free(fifo);
	/* a socket is called one */
	char *sock = path_join(dir, "content/sock.md");
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	assert_true(strlen(sock) < sizeof sa.sun_path);
	strcpy(sa.sun_path, sock);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	free(sock);
	struct proc r = e2e_run(dir, "check");
	close(fd);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "content/pipe.md: warning: not a regular file (a FIFO): left out\n"
				   "content/sock.md: warning: not a regular file (a socket): left "
				   "out\n"
				   "logdown: checked 1 report\n");
	proc_free(&r);
	project_free(dir);
}

/* A Unix socket bound at dir/rel; the caller closes it. */
static int socket_at(const char *dir, const char *rel)
{
	char *path = path_join(dir, rel);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	assert_true(fd >= 0 && strlen(path) < sizeof sa.sun_path);
	strcpy(sa.sun_path, path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	free(path);
	return fd;
}

/* A socket where a log, an image, a bibliography or the output should
 * be is called a socket, not "a FIFO or device" nor only "not a file". */
static void a_socket_is_called_a_socket(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "parsers/t.yaml", "name: t\nfields:\n  loss: 'loss=(\\S+)'\n");
	e2e_write(dir, "content/r/index.md",
		  "---\ntitle: R\nbibliography: refs.bib\nruns:\n  a: { file: a.log, parser: t }\n"
		  "---\nLoss {{ a.loss }}. ![plot](plot.png) [@knuth]\n");
	int fds[] = {socket_at(dir, "content/r/a.log"), socket_at(dir, "content/r/plot.png"),
		     socket_at(dir, "content/r/refs.bib"), socket_at(dir, "out")};
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "content/r/a.log: warning: not a regular file (a socket): left out\n"
			    "content/r/plot.png: warning: not a regular file (a socket): left out\n"
			    "content/r/refs.bib: warning: not a regular file (a socket): left out\n"
			    "content/r/index.md:5:14: error: a.log is not a regular file (a socket)\n"
			    "    5 |   a: { file: a.log, parser: t }\n"
			    "      |              ^~~~~\n"
			    "content/r/index.md:3:15: error: bibliography 'content/r/refs.bib' is a "
			    "socket, not a file\n"
			    "    3 | bibliography: refs.bib\n"
			    "      |               ^~~~~~~~\n"
			    "content/r/index.md:7:9: note: run 'a' did not load (above)\n"
			    "    7 | Loss {{ a.loss }}. ![plot](plot.png) [@knuth]\n"
			    "      |         ^\n"
			    "content/r/index.md:7:13: warning: image 'plot.png' is a socket, not a "
			    "file\n"
			    "    7 | Loss {{ a.loss }}. ![plot](plot.png) [@knuth]\n"
			    "      |             ^\n"
			    "logdown: 2 errors; nothing was written\n");
	proc_free(&r);
	r = e2e_run(dir, "parse content/r/a.log --parser t");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "content/r/a.log: error: not a regular file (a socket)\n");
	proc_free(&r);
	e2e_write(dir, "content/r/index.md", "---\ntitle: R\n---\nNothing.\n");
	r = e2e_run(dir, "build -o out");
	assert_int_equal(r.status, 2);
	/* the output: what src/base/outdir.c says of anything not a folder */
	assert_string_equal(r.err, "logdown: error: refusing to write the site to 'out': it exists "
				   "and is not a folder\n");
	proc_free(&r);
	for (size_t i = 0; i < ARRAY_LEN(fds); i++)
		close(fds[i]);
	project_free(dir);
}

static void reports_cannot_take_the_names_the_site_uses(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/static.md", "x");
	e2e_write(dir, "content/index.html.md", "x");
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "content/index.html.md: error: this report would be written to "
			    "index.html/, where the site keeps its own 'index.html': rename it\n"
			    "content/static.md: error: this report would be written to static/, "
			    "where the site keeps its own 'static': rename it\n"
			    "logdown: 2 errors; nothing was written\n");
	proc_free(&r);
	project_free(dir);
}

static void markdown_inside_a_bundle_is_not_a_report(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/hw07/notes.md", "x");
	e2e_write(dir, "content/hw07/part2/index.md", "x");
	e2e_write(dir, "content/hw07/logs/README.md", "about the logs");
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err,
			    "content/hw07/notes.md: warning: not a report: the files in the folder "
			    "of content/hw07/index.md belong to that report (move this one out of "
			    "the folder to make it a report)\n"
			    "content/hw07/part2/index.md: warning: not a report: the files in the "
			    "folder of content/hw07/index.md belong to that report (move this one "
			    "out of the folder to make it a report)\n"
			    "logdown: checked 1 report\n");
	proc_free(&r);
	project_free(dir);
}

static void json_diagnostics_are_the_only_output(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/x.md", "---\ntitel: x\n---\n");
	struct proc r = e2e_run(dir, "build --diagnostics=json");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "{\"severity\":\"warning\",\"file\":\"content/x.md\",\"line\":2,"
				   "\"col\":1,\"message\":\"unknown front matter key 'titel' (did "
				   "you mean 'title'?)\"}\n");
	proc_free(&r);
	project_free(dir);
}

/* A warning that quotes a log's bytes (here a value that is not UTF-8)
 * is still one JSON object a line: each stray byte becomes \ufffd.  The
 * exact bytes are asserted, which is stricter than parsing them. */
static void json_diagnostics_stay_json_when_a_log_is_not_utf8(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "parsers/t.yaml",
		  "name: t\n"
		  "description: a typed field\n"
		  "fields:\n"
		  "  loss: { pattern: 'loss=(\\S+)', type: number }\n");
	e2e_write(dir, "content/x/a.log", "loss=\xff\xfe\n");
	e2e_write(dir, "content/x/index.md",
		  "---\ntitle: X\nruns:\n  a: { file: a.log, parser: t }\n---\nLoss {{ a.loss }}.\n");
	struct proc r = e2e_run(dir, "check --diagnostics=json");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "{\"severity\":\"warning\",\"file\":\"content/x/a.log\",\"line\":1,"
				   "\"col\":0,\"message\":\"field 'loss' is a number, but "
				   "'\\ufffd\\ufffd' is not one; kept as text\"}\n");
	proc_free(&r);
	project_free(dir);
}

/* A report folder named with a newline, an escape sequence, a byte that
 * is not UTF-8 and GitHub's separators, and a log line with an escape
 * sequence, a C1 CSI and stray bytes: a GitHub annotation is still one
 * workflow command (%0A, %2C, %3A, %25; controls as '?', stray bytes as
 * U+FFFD) and a JSON diagnostic one line of valid JSON (\u escapes). */
static void annotations_and_json_never_carry_raw_control_bytes(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "parsers/t.yaml",
		  "name: t\n"
		  "description: a typed field\n"
		  "fields:\n"
		  "  loss: { pattern: 'loss=(\\S+)', type: number }\n");
#define NAME "content/x\n\x1b[2J\xff,:%"
	e2e_write(dir, NAME "/a.log", "loss=\x1b]0;t\x07\xc2\x9b" "2J\xff%\r\n");
	e2e_write(dir, NAME "/index.md",
		  "---\ntitle: X\nruns:\n  a: { file: a.log, parser: t }\n---\nLoss {{ a.loss }}.\n");
	struct proc r = e2e_run(dir, "check --diagnostics=github");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "::warning file=content/x%0A?[2J\xEF\xBF\xBD%2C%3A%25/a.log,"
				   "line=1::field 'loss' is a number, but '?]0;t??2J\xEF\xBF\xBD%25' "
				   "is not one; kept as text\n");
	proc_free(&r);
	r = e2e_run(dir, "check --diagnostics=json");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "{\"severity\":\"warning\",\"file\":\"content/x\\n\\u001b[2J"
				   "\\ufffd,:%/a.log\",\"line\":1,\"col\":0,\"message\":\"field 'loss' "
				   "is a number, but '\\u001b]0;t\\u0007\\u009b2J\\ufffd%' is not one; "
				   "kept as text\"}\n");
	proc_free(&r);
	/* and on a terminal, the same controls as '?' */
	r = e2e_run(dir, "check");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "content/x??[2J\xff,:%/a.log:1: warning: field 'loss' is a "
				   "number, but '?]0;t??2J\xff%' is not one; kept as text\n"
				   "    1 | loss=?]0;t??2J\xff%\n"
				   "logdown: checked 2 reports\n");
#undef NAME
	proc_free(&r);
	project_free(dir);
}

static void runs_are_loaded_and_checked_at_their_line(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/r/logs/bs512.log",
		  "2024-03-30 15:19:11,785 INFO:   | Train Device=CSX, Step=1000, Loss=7.12500, "
		  "Rate=2900.63 samples/sec, GlobalRate=2924.54 samples/sec\n"
		  "2024-03-30 15:20:24,238 INFO:   Processed 512000 sample(s) in 175.070497198 "
		  "seconds.\n");
	e2e_write(dir, "secret.log", "x\n");
	e2e_write(dir, "content/r/index.md",
		  "---\n"
		  "title: Runs\n"
		  "runs:\n"
		  "  cs512: logs/bs512.log\n"
		  "  away: ../../../secret.log\n"
		  "  typo: { file: logs/bs512.log, parser: cerebas }\n"
		  "---\n");
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 1);
	assert_string_equal(
		r.err,
		"content/r/index.md:5:9: error: ../../../secret.log leads outside the project: "
		"logdown reads nothing there (copy the file into the project)\n"
		"    5 |   away: ../../../secret.log\n"
		"      |         ^~~~~~~~~~~~~~~~~~~\n"
		"content/r/index.md:6:41: error: unknown parser 'cerebas' (did you mean "
		"'cerebras'?)\n"
		"    6 |   typo: { file: logs/bs512.log, parser: cerebas }\n"
		"      |                                         ^~~~~~~\n"
		"content/r/index.md:4:3: warning: run 'cs512' is never used: no value, table "
		"or excerpt names it\n"
		"    4 |   cs512: logs/bs512.log\n"
		"      |   ^~~~~\n"
		"logdown: 2 errors; nothing was written\n");
	proc_free(&r);
	project_free(dir);
}

static const char sweep_log[] =
	"2024-03-30 15:19:11,785 INFO:   | Train Device=CSX, Step=1000, Loss=7.12500, "
	"Rate=2900.63 samples/sec, GlobalRate=2924.54 samples/sec\n"
	"2024-03-30 15:20:24,238 INFO:   Processed 512000 sample(s) in 175.070497198 seconds.\n";

static void check_against_names_every_stale_file(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/r/logs/bs512.log", sweep_log);
	e2e_write(dir, "content/r/index.md",
		  "---\nruns:\n  cs512: logs/bs512.log\n---\nLoss {{ cs512.final_loss }}.\n");
	e2e_ok(dir, "build");
	struct proc r = e2e_run(dir, "check --against _site");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: checked 2 reports; _site is up to date\n");
	proc_free(&r);

	/* the log changed after the site was committed */
	e2e_write(dir, "content/r/logs/bs512.log", "");
	char *log = path_join(dir, "content/r/logs/bs512.log");
	char *changed = xasprintf("%s", sweep_log);
	changed[strstr(changed, "7.12500") - changed + 5] = '9';
	assert_true(file_write(log, changed, strlen(changed)));
	e2e_write(dir, "_site/old.html", "gone");
	r = e2e_run(dir, "check --against _site");
	assert_int_equal(r.status, 1);
	/* the manifest too; then what changed, from it */
	assert_string_equal(r.err,
			    "_site/manifest.json: error: differs from what a build writes (the "
			    "output is stale: rebuild and commit it)\n"
			    "_site/old.html: error: a build no longer writes it (the output is "
			    "stale: rebuild and commit it)\n"
			    "_site/r/index.html: error: differs from what a build writes (the "
			    "output is stale: rebuild and commit it)\n"
			    "_site/r/logs/bs512.log: error: differs from what a build writes (the "
			    "output is stale: rebuild and commit it)\n"
			    "_site/r/logs/bs512.log.html: error: differs from what a build writes "
			    "(the output is stale: rebuild and commit it)\n"
			    /* the search index holds the value as shown */
			    "_site/search-index.js: error: differs from what a build writes (the "
			    "output is stale: rebuild and commit it)\n"
			    "what changed since _site was built:\n"
			    "r (content/r/index.md)\n"
			    "  content/r/logs/bs512.log changed: hash 1a24fea465e5 \u2192 "
			    "d4bf7abd12e6\n"
			    "  content/r/index.md:5:6: {{ cs512.final_loss }}: 7.12500 \u2192 7.12590 "
			    "(+0.013%)\n"
			    "      from content/r/logs/bs512.log:1 \u2192 content/r/logs/bs512.log:1\n"
			    "logdown: 2 changes in 1 report\n"
			    "logdown: 6 errors; nothing was written\n");
	proc_free(&r);
	r = e2e_run(dir, "check --against nowhere");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "nowhere: error: no built site to check against: No such file "
				   "or directory\n");
	proc_free(&r);
	free(changed);
	free(log);
	project_free(dir);
}

static void a_run_nothing_names_is_a_warning(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/r/logs/bs512.log", sweep_log);
	e2e_write(dir, "content/r/index.md",
		  "---\nruns:\n  cs512: logs/bs512.log\n---\nThe cs512 run, in words only.\n");
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err,
			    "content/r/index.md:3:3: warning: run 'cs512' is never used: no value, "
			    "table or excerpt names it\n"
			    "    3 |   cs512: logs/bs512.log\n"
			    "      |   ^~~~~\n"
			    "logdown: checked 2 reports\n");
	proc_free(&r);
	r = e2e_run(dir, "check --strict");
	assert_int_equal(r.status, 1);
	proc_free(&r);
	project_free(dir);
}

static void output_at_the_project_root_is_refused(void **state)
{
	(void)state;
	char *dir = project_new();
	struct proc r = e2e_run(dir, "build -o .");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err,
			    "logdown: error: refusing to write the site to '.': it is the project "
			    "root\n");
	char *src = path_join(dir, "content/hw07/index.md");
	assert_true(is_file(src));
	free(src);
	proc_free(&r);

	r = e2e_run(dir, "build -o ..");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "refusing to write the site to '..': it holds the project");
	proc_free(&r);

	r = e2e_run(dir, "build -o content/site");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "it lies inside content/, among the sources");
	proc_free(&r);
	project_free(dir);
}

static void a_folder_logdown_did_not_make_is_not_replaced(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "public/thesis.tex", "precious");
	struct proc r = e2e_run(dir, "build -o public");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err,
			    "logdown: error: refusing to write the site to 'public': logdown did "
			    "not create it (no .logdown-site marker inside); remove it or choose "
			    "another folder with -o\n");
	char *kept = e2e_read(dir, "public/thesis.tex");
	assert_string_equal(kept, "precious");
	free(kept);
	proc_free(&r);
	project_free(dir);
}

static void failed_build_leaves_previous_output_intact(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_ok(dir, "build");
	char *before = e2e_read(dir, "_site/hw07/index.html");
	assert_non_null(before);

	e2e_write(dir, "content/hw07/index.md", "---\ntitle: [broken\n---\nchanged\n");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "logdown: 1 error; the previous output was left as it was\n");
	char *after = e2e_read(dir, "_site/hw07/index.html");
	assert_string_equal(before, after);
	/* no staging folder is left behind (the output's lock file stays) */
	size_t n;
	char **names = dir_list(dir, &n);
	for (size_t i = 0; i < n; i++)
		assert_false(str_has_prefix(names[i], "._site") && strcmp(names[i], "._site.lock"));
	strv_free(names);
	free(before);
	free(after);
	proc_free(&r);
	project_free(dir);
}

static void two_builds_are_byte_identical(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "static/extra.css", "p{}");
	struct proc a = e2e_run(dir, "build -o out1");
	struct proc b = e2e_run(dir, "build -o out2");
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	char *cmd = xasprintf("diff -r '%s/out1' '%s/out2' >/dev/null", dir, dir);
	assert_int_equal(system(cmd), 0);
	char *extra = e2e_read(dir, "out1/static/extra.css");
	assert_string_equal(extra, "p{}");
	free(extra);
	free(cmd);
	proc_free(&a);
	proc_free(&b);
	project_free(dir);
}

static void project_templates_and_partials_override_the_builtins(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "templates/page.html",
		  "<h1>{{title}}</h1>{{> footer}}\n{{{content}}}");
	e2e_write(dir, "templates/partials/footer.html", "<footer>{{site.title}}</footer>");
	e2e_write(dir, "site.yaml", "title: Course site\n");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	char *page = e2e_read(dir, "_site/hw07/index.html");
	assert_true(str_has_prefix(page, "<h1>Homework 7: AI accelerators</h1>"
					 "<footer>Course site</footer>\n<h1 id=\"cerebras\">Cerebras<a "
					 "class=\"ld-anchor\" href=\"#cerebras\" aria-label=\"Link to "
					 "this section: Cerebras\">#</a></h1>"));
	free(page);
	proc_free(&r);
	project_free(dir);
}

static void page_template_can_extend_a_base_layout(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "templates/base.html",
		  "<main>{{$body}}empty{{/body}}</main><i>{{$foot}}default foot{{/foot}}</i>");
	e2e_write(dir, "templates/page.html", "{{<base}}{{$body}}<h1>{{title}}</h1>{{/body}}{{/base}}");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	char *page = e2e_read(dir, "_site/hw07/index.html");
	assert_string_equal(page, "<main><h1>Homework 7: AI accelerators</h1></main>"
				  "<i>default foot</i>");
	free(page);
	proc_free(&r);
	project_free(dir);
}

static void missing_partial_is_a_warning_once(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/two.md", "---\ntitle: Two\n---\n");
	e2e_write(dir, "templates/page.html", "{{> nav}}{{{content}}}");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err,
			    "templates/page.html: warning: template 'nav' for {{> nav}} or {{< nav}} "
			    "not found (looked for templates/partials/nav.html and "
			    "templates/nav.html)\n"
			    "logdown: built 2 reports into _site\n");
	proc_free(&r);
	project_free(dir);
}

static void template_error_is_reported_at_its_line(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "templates/index.html", "<ul>\n{{#reports}}<li>{{title}}</li>\n</ul>\n");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "templates/index.html:2:1: error: ");
	assert_contains(r.err, "reports");
	proc_free(&r);
	project_free(dir);
}

static void bundle_images_are_copied_beside_the_page(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/hw07/img/loss.png", "PNG");
	e2e_write(dir, "content/hw07/logs/run.log", "Step=1");
	e2e_write(dir, "content/hw07/logs/notes.md", "not a report");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	char *png = e2e_read(dir, "_site/hw07/img/loss.png");
	assert_string_equal(png, "PNG");
	free(png);
	proc_free(&r);
	project_free(dir);
}

static void two_reports_with_one_slug_are_an_error(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/hw07.md", "---\ntitle: twin\n---\n");
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "both become hw07/index.html: rename one");
	proc_free(&r);
	project_free(dir);
}

static void binary_report_is_refused(void **state)
{
	(void)state;
	char *dir = project_new();
	char *path = path_join(dir, "content/blob.md");
	assert_true(file_write(path, "ab\0cd", 5));
	free(path);
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "content/blob.md: error: this is a binary file, not Markdown text\n");
	proc_free(&r);
	project_free(dir);
}

static void github_and_json_diagnostics(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/x.md", "---\ndraft: maybe\n---\n");
	struct proc r = e2e_run(dir, "check --diagnostics=github");
	assert_int_equal(r.status, 1);
	assert_contains(r.err,
			"::error file=content/x.md,line=2,col=8::'draft' must be true or false\n");
	proc_free(&r);
	r = e2e_run(dir, "check --diagnostics=json");
	assert_contains(r.err, "{\"severity\":\"error\",\"file\":\"content/x.md\",\"line\":2,"
			       "\"col\":8,\"message\":\"'draft' must be true or false\"}\n");
	proc_free(&r);
	project_free(dir);
}

static void new_project_builds_as_it_is(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	struct proc r = e2e_run(dir, "new course");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
			    "Created a logdown project in course.\n"
			    "Start from course/content/first-report/index.md: a report that reads\n"
			    "a real log and uses each feature once, with comments that say how.\n"
			    "Next:\n"
			    "  logdown serve course    preview it at http://127.0.0.1:8000/ as you edit\n"
			    "  logdown build course    write the site to course/_site\n"
			    "Commit course/_site with the rest: the CI files (.github/workflows/report.yml,\n"
			    ".gitlab-ci.yml) check it against its sources and say which numbers changed.\n");
	proc_free(&r);
	r = e2e_run(dir, "build course");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into course/_site\n");
	proc_free(&r);

	r = e2e_run(dir, "new course");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "logdown: error: 'course' already exists and is not empty: "
				   "choose a new folder\n");
	proc_free(&r);
	project_free(dir);
}

/* `logdown new` in an empty folder, then `logdown build`: no warning,
 * and the page shows each feature the starter report teaches. */
static void new_in_an_empty_folder_uses_every_feature_once(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	struct proc r = e2e_run(dir, "new");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
			    "Created a logdown project in this folder.\n"
			    "Start from content/first-report/index.md: a report that reads\n"
			    "a real log and uses each feature once, with comments that say how.\n"
			    "Next:\n"
			    "  logdown serve    preview it at http://127.0.0.1:8000/ as you edit\n"
			    "  logdown build    write the site to _site\n"
			    "Commit _site with the rest: the CI files (.github/workflows/report.yml,\n"
			    ".gitlab-ci.yml) check it against its sources and say which numbers changed.\n");
	proc_free(&r);
	r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	proc_free(&r);
	char *page = e2e_read(dir, "_site/first-report/index.html");
	/* a value, formatted and linked to its line */
	assert_contains(page, "<a class=\"ld-value\" href=\"logs/bs512.log.html#L15.1\" "
			      "title=\"content/first-report/logs/bs512.log:15\">512,000</a>");
	/* a table, a chart and cross-references to them */
	assert_contains(page, "id=\"tbl-steps\"");
	assert_contains(page, "Table 1: Loss and rate every 100 steps");
	assert_contains(page, "<figure class=\"ld-figure\" id=\"fig-loss\">");
	assert_contains(page, "Figure 1: Training loss of the run at batch size 512");
	assert_contains(page, "<a class=\"ld-ref\" href=\"#fig-loss\">Figure 1</a>");
	assert_contains(page, "<a class=\"ld-ref\" href=\"#tbl-steps\">Table 1</a>");
	/* a log excerpt, its lines linked to the log's page */
	assert_contains(page, "href=\"logs/bs512.log.html#L14\">14</a>");
	assert_contains(page, "Training completed successfully!");
	free(page);
	char *svg = path_join(dir, "_site/first-report/figures/fig-loss.svg");
	assert_true(is_file(svg));
	free(svg);

	/* not twice in the same folder */
	r = e2e_run(dir, "new");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "logdown: error: this folder is not empty: run logdown new in "
				   "an empty one, or name a new folder (logdown new DIR)\n");
	proc_free(&r);
	project_free(dir);
}

/* The example README.md opens with builds as it says, on the log that
 * `logdown new` writes. */
static void the_readme_example_builds(void **state)
{
	(void)state;
	char *readme = e2e_read(".", "README.md");
	assert_non_null(readme);
	const char *from = strstr(readme, "````markdown\n");
	assert_non_null(from);
	from += strlen("````markdown\n");
	const char *to = strstr(from, "````\n");
	assert_non_null(to);
	char *example = xstrndup(from, (size_t)(to - from));
	char *dir = e2e_tmpdir();
	struct proc r = e2e_run(dir, "new");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	e2e_write(dir, "content/first-report/index.md", example);
	r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	proc_free(&r);
	char *page = e2e_read(dir, "_site/first-report/index.html");
	assert_contains(page, ">512,000</a> samples in <a class=\"ld-value\" "
			      "href=\"logs/bs512.log.html#L15.2\" "
			      "title=\"content/first-report/logs/bs512.log:15\">175.1</a> s;");
	assert_contains(page, "<a class=\"ld-ref\" href=\"#fig-loss\">Figure 1</a>");
	free(page);
	free(example);
	free(readme);
	project_free(dir);
}

static void output_paths_are_judged_by_the_folder_they_reach(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "notes.txt", "precious");
	/* ".." below a folder that does not exist yet still leads back into
	 * the project: refused, nothing deleted. */
	struct proc r = e2e_run(dir, "build -o nonexist/../content");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "refusing to write the site to 'nonexist/../content': it lies "
			       "inside content/, among the sources");
	proc_free(&r);
	r = e2e_run(dir, "build -o nonexist/../../%s", strrchr(dir, '/') + 1);
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "it is the project root");
	proc_free(&r);
	char *kept = e2e_read(dir, "notes.txt");
	assert_string_equal(kept, "precious");
	free(kept);
	char *src = e2e_read(dir, "content/hw07/index.md");
	assert_non_null(src);
	free(src);

	/* A trailing slash names the folder itself. */
	r = e2e_run(dir, "build -o out/");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into out/\n");
	char *page = e2e_read(dir, "out/hw07/index.html");
	assert_non_null(page);
	free(page);
	proc_free(&r);
	project_free(dir);
}

static void a_linked_output_folder_is_replaced_where_it_points(void **state)
{
	(void)state;
	char *dir = project_new();
	char *pub = path_join(dir, "pub");
	char *link = path_join(dir, "_site");
	e2e_ok(dir, "build -o pub");
	assert_int_equal(symlink(pub, link), 0);
	e2e_write(dir, "content/hw05.md", "---\ntitle: Second\n---\n");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	char *second = e2e_read(dir, "pub/hw05/index.html");
	assert_non_null(second);
	free(second);
	proc_free(&r);
	free(link);
	free(pub);
	project_free(dir);
}

static void a_killed_build_leaves_nothing_the_next_one_keeps(void **state)
{
	(void)state;
	char *dir = project_new();
	/* A staging folder of a process that no longer exists. */
	e2e_write(dir, "._site.tmp-999999999/.logdown-site", "x");
	e2e_write(dir, "._site.tmp-999999999/index.html", "stale");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	char *stale = path_join(dir, "._site.tmp-999999999");
	assert_false(path_exists(stale));
	free(stale);
	proc_free(&r);
	project_free(dir);
}

static void help_version_and_bad_usage(void **state)
{
	(void)state;
	struct proc r = e2e_run(".", "--version");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "logdown 0.1.0\n");
	proc_free(&r);

	r = e2e_run(".", "--help");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "usage: logdown <command> [options]");
	proc_free(&r);

	r = e2e_run(".", "build --help");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "usage: logdown build [DIR] [-o OUT]");
	proc_free(&r);

	r = e2e_run(".", "biuld");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: unknown command 'biuld' (did you mean 'build'?)");
	proc_free(&r);

	r = e2e_run(".", "build --frobnicate");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: unknown option '--frobnicate'");
	proc_free(&r);

	r = e2e_run(".", "new ''");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: name the folder to create");
	proc_free(&r);

	r = e2e_run(".", "build /nonexistent/project");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "/nonexistent/project: error: not a project folder: No such "
				   "file or directory\n");
	proc_free(&r);
}

/* Runs `logdown check` in dir under a pseudo-terminal (script(1)), so
 * that stderr is a terminal; env is prepended to the command. */
static char *check_on_a_terminal(const char *dir, const char *env)
{
	char *log = path_join(dir, "tty.log");
	char *cmd = xasprintf("cd '%s' && %s script -qec '%s check' '%s' </dev/null >/dev/null 2>&1",
			      dir, env, e2e_binary(), log);
	int st = system(cmd);
	(void)st;
	char *text = e2e_read(dir, "tty.log");
	free(cmd);
	free(log);
	return text;
}

static void colour_only_on_a_terminal_and_never_with_no_color(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/x.md", "---\ndraft: maybe\n---\n");
	char *tty = check_on_a_terminal(dir, "env -u NO_COLOR");
	assert_contains(tty, "\033[1;31merror:");
	free(tty);
	tty = check_on_a_terminal(dir, "env NO_COLOR=1");
	assert_contains(tty, "content/x.md:2:8: error: 'draft' must be true or false");
	assert_not_contains(tty, "\033[");
	free(tty);
	struct proc r = e2e_run(dir, "check");
	assert_not_contains(r.err, "\033[");
	proc_free(&r);
	project_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builds_report_page_and_index),
		cmocka_unit_test(drafts_are_left_out_unless_asked),
		cmocka_unit_test(malformed_front_matter_points_at_its_line_in_the_md_file),
		cmocka_unit_test(unclosed_front_matter_is_an_error),
		cmocka_unit_test(bad_date_and_draft_are_errors_at_their_values),
		cmocka_unit_test(unknown_front_matter_key_is_a_warning_with_a_suggestion),
		cmocka_unit_test(unknown_site_yaml_key_warns_and_strict_makes_it_fail),
		cmocka_unit_test(dangling_link_is_an_error_naming_the_file),
		cmocka_unit_test(links_stay_inside_the_project_and_never_loop),
		cmocka_unit_test(special_files_are_left_out_with_a_warning),
		cmocka_unit_test(a_socket_is_called_a_socket),
		cmocka_unit_test(reports_cannot_take_the_names_the_site_uses),
		cmocka_unit_test(markdown_inside_a_bundle_is_not_a_report),
		cmocka_unit_test(json_diagnostics_are_the_only_output),
		cmocka_unit_test(json_diagnostics_stay_json_when_a_log_is_not_utf8),
		cmocka_unit_test(annotations_and_json_never_carry_raw_control_bytes),
		cmocka_unit_test(runs_are_loaded_and_checked_at_their_line),
		cmocka_unit_test(check_against_names_every_stale_file),
		cmocka_unit_test(a_run_nothing_names_is_a_warning),
		cmocka_unit_test(output_at_the_project_root_is_refused),
		cmocka_unit_test(a_folder_logdown_did_not_make_is_not_replaced),
		cmocka_unit_test(failed_build_leaves_previous_output_intact),
		cmocka_unit_test(two_builds_are_byte_identical),
		cmocka_unit_test(project_templates_and_partials_override_the_builtins),
		cmocka_unit_test(page_template_can_extend_a_base_layout),
		cmocka_unit_test(missing_partial_is_a_warning_once),
		cmocka_unit_test(template_error_is_reported_at_its_line),
		cmocka_unit_test(bundle_images_are_copied_beside_the_page),
		cmocka_unit_test(two_reports_with_one_slug_are_an_error),
		cmocka_unit_test(binary_report_is_refused),
		cmocka_unit_test(github_and_json_diagnostics),
		cmocka_unit_test(new_project_builds_as_it_is),
		cmocka_unit_test(new_in_an_empty_folder_uses_every_feature_once),
		cmocka_unit_test(the_readme_example_builds),
		cmocka_unit_test(output_paths_are_judged_by_the_folder_they_reach),
		cmocka_unit_test(a_linked_output_folder_is_replaced_where_it_points),
		cmocka_unit_test(a_killed_build_leaves_nothing_the_next_one_keeps),
		cmocka_unit_test(help_version_and_bad_usage),
		cmocka_unit_test(colour_only_on_a_terminal_and_never_with_no_color),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
