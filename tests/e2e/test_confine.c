/* test_confine.c: logdown reads nothing outside the project and writes
 * nothing outside its output; a permission it lacks is a diagnostic.
 *
 * Each link case builds a good site, plants a symbolic link leading to
 * a "secret" outside the project, and checks the exact diagnostic, the
 * exit status, that the secret is nowhere in the output and that the
 * previous _site is byte for byte as it was. */
#define _DEFAULT_SOURCE /* wait4(), setgroups(), symlink(), usleep() */
#include "e2e.h"

#include <grp.h>

#include "bounded.h"

#define SECRET "TOP-SECRET Loss=9.99"

static const char parser_t[] = "name: t\n"
			       "fields:\n"
			       "  final_loss: 'Loss=([\\d.]+)'\n";

static const char report_ok[] = "---\n"
				"title: T\n"
				"runs:\n"
				"  a: { file: logs/a.log, parser: t }\n"
				"---\n"
				"Loss {{ a.final_loss }}.\n";

struct fixture {
	char *dir;     /* the project */
	char *outside; /* a folder beside it, holding the secret */
};

static void fx_open(struct fixture *fx)
{
	fx->dir = e2e_project(E2E_FILES(E2E_TEXT("parsers/t.yaml", parser_t),
					E2E_TEXT("content/r/index.md", report_ok),
					E2E_TEXT("content/r/logs/a.log", "Loss=2.5\n")));
	fx->outside = e2e_project(
		E2E_FILES(E2E_TEXT("secret.log", SECRET "\n"),
			  E2E_TEXT("secret.yaml", "name: stolen\nfields:\n  x: 'x=(\\d+)'\n"),
			  E2E_TEXT("secret.html", SECRET "{{title}}"),
			  E2E_TEXT("dir/secret.md", "---\ntitle: " SECRET "\n---\n" SECRET "\n")));
	struct proc r = e2e_run(fx->dir, "build");
	if (r.status != 0)
		fail_msg("the good build failed:\n%s", r.err);
	proc_free(&r);
}

static void fx_close(struct fixture *fx)
{
	remove_tree(fx->dir);
	remove_tree(fx->outside);
	free(fx->dir);
	free(fx->outside);
}

/* Makes dir/rel a link to outside/target. */
static void plant(struct fixture *fx, const char *rel, const char *target)
{
	char *link = path_join(fx->dir, rel);
	char *to = path_join(fx->outside, target);
	char *parent = path_dirname(link);
	assert_true(mkdir_p(parent));
	assert_int_equal(symlink(to, link), 0);
	free(parent);
	free(to);
	free(link);
}

/* Appends every file's bytes below dir to b (links not followed). */
static void all_bytes(struct buf *b, const char *dir)
{
	char *t = tree_snapshot(dir);
	buf_puts(b, t);
	free(t);
}

/* Builds, expecting exit 1 with diag among the diagnostics, the
 * previous _site untouched and the secret nowhere in it. */
static void expect_refused(struct fixture *fx, const char *diag)
{
	char *site = path_join(fx->dir, "_site");
	char *before = tree_snapshot(site);
	struct proc r = e2e_run(fx->dir, "build");
	if (r.status != 1)
		fail_msg("exit %d, expected 1:\n%s", r.status, r.err);
	assert_contains(r.err, diag);
	assert_contains(r.err, "the previous output was left as it was\n");
	char *after = tree_snapshot(site);
	assert_string_equal(after, before);
	struct buf out = BUF_INIT;
	all_bytes(&out, site);
	assert_not_contains(buf_data(&out), "TOP-SECRET");
	/* check writes nothing and refuses alike */
	proc_free(&r);
	r = e2e_run(fx->dir, "check");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, diag);
	proc_free(&r);
	buf_free(&out);
	free(after);
	free(before);
	free(site);
}

#define OUTSIDE_MSG                                                                          \
	"error: a link leading outside the project: logdown reads nothing there (copy what you " \
	"need into the project)\n"

static void result_file_linked_outside(void **state)
{
	(void)state;
	struct fixture fx;
	fx_open(&fx);
	plant(&fx, "content/r/logs/s.log", "secret.log");
	e2e_write(fx.dir, "content/r/index.md",
		  "---\ntitle: T\nruns:\n  a: { file: logs/s.log, parser: t }\n---\n"
		  "Loss {{ a.final_loss }}.\n");
	expect_refused(&fx, "content/r/index.md:4:14: error: logs/s.log leads outside the project: "
			    "logdown reads nothing there (copy the file into the project)\n");
	fx_close(&fx);
}

static void result_path_climbing_out(void **state)
{
	(void)state;
	struct fixture fx;
	fx_open(&fx);
	char *rel = xasprintf("../../../../../../../../..%s/secret.log", fx.outside);
	char *md = xasprintf("---\ntitle: T\nruns:\n  a: { file: '%s', parser: t }\n---\nx\n", rel);
	e2e_write(fx.dir, "content/r/index.md", md);
	char *want = xasprintf("content/r/index.md:4:14: error: %s leads outside the project: "
			       "logdown reads nothing there (copy the file into the project)\n",
			       rel);
	expect_refused(&fx, want);
	free(want);
	free(md);
	free(rel);
	fx_close(&fx);
}

static void glob_member_linked_outside(void **state)
{
	(void)state;
	struct fixture fx;
	fx_open(&fx);
	plant(&fx, "content/r/logs/s.log", "secret.log");
	e2e_write(fx.dir, "content/r/index.md",
		  "---\ntitle: T\nruns:\n  g: { glob: 'logs/*.log', parser: t }\n---\n"
		  "{{ g.a.final_loss }}\n");
	expect_refused(&fx, "content/r/index.md:4:14: error: content/r/logs/s.log leads outside "
			    "the project: logdown reads nothing there (copy the file into the "
			    "project)\n");
	fx_close(&fx);
}

static void content_linked_outside(void **state)
{
	(void)state;
	struct fixture fx;
	fx_open(&fx);
	plant(&fx, "content/ext", "dir");
	expect_refused(&fx, "content/ext: " OUTSIDE_MSG);
	fx_close(&fx);
	fx_open(&fx);
	plant(&fx, "content/x.md", "dir/secret.md");
	expect_refused(&fx, "content/x.md: " OUTSIDE_MSG);
	fx_close(&fx);
}

static void bundle_resource_and_static_linked_outside(void **state)
{
	(void)state;
	struct fixture fx;
	fx_open(&fx);
	plant(&fx, "content/r/pic.png", "secret.log");
	expect_refused(&fx, "content/r/pic.png: " OUTSIDE_MSG);
	fx_close(&fx);
	fx_open(&fx);
	plant(&fx, "static/style.css", "secret.log");
	expect_refused(&fx, "static/style.css: " OUTSIDE_MSG);
	fx_close(&fx);
}

static void templates_linked_outside(void **state)
{
	(void)state;
	struct fixture fx;
	fx_open(&fx);
	plant(&fx, "templates/page.html", "secret.html");
	expect_refused(&fx, "templates/page.html: " OUTSIDE_MSG);
	fx_close(&fx);
	/* a partial would paste the file into every page */
	fx_open(&fx);
	e2e_write(fx.dir, "templates/page.html", "<p>{{title}}</p>{{> leak}}");
	plant(&fx, "templates/partials/leak.html", "secret.html");
	expect_refused(&fx, "templates/partials/leak.html: " OUTSIDE_MSG);
	struct proc r = e2e_run(fx.dir, "build");
	/* reported once, though every page includes it */
	const char *first = strstr(r.err, "leak.html");
	assert_non_null(first);
	assert_null(strstr(first + 1, "leak.html"));
	proc_free(&r);
	fx_close(&fx);
}

static void parsers_linked_outside(void **state)
{
	(void)state;
	struct fixture fx;
	fx_open(&fx);
	plant(&fx, "parsers/stolen.yaml", "secret.yaml");
	expect_refused(&fx, "parsers/stolen.yaml: " OUTSIDE_MSG);
	fx_close(&fx);
	/* a folder site.yaml lists may be anywhere, but a link in it may
	 * not lead out of it */
	fx_open(&fx);
	char *shared = path_join(fx.outside, "shared");
	e2e_write(shared, "ok.yaml", "name: ok\nfields:\n  y: 'y=(\\d+)'\n");
	char *passwd = path_join(shared, "pw.yaml");
	assert_int_equal(symlink("/etc/passwd", passwd), 0);
	char *site = xasprintf("parsers: ['%s']\n", shared);
	e2e_write(fx.dir, "site.yaml", site);
	char *want = xasprintf("%s: " OUTSIDE_MSG, passwd);
	expect_refused(&fx, want);
	free(want);
	free(site);
	free(passwd);
	free(shared);
	fx_close(&fx);
}

/* A previous _site holding links (someone's doing, or a restore gone
 * wrong) is replaced without anything being written through them. */
static void links_in_the_previous_output_are_not_followed(void **state)
{
	(void)state;
	struct fixture fx;
	fx_open(&fx);
	char *site = path_join(fx.dir, "_site");
	char *victim_dir = path_join(fx.outside, "dir");
	char *victim = path_join(fx.outside, "secret.log");
	char *r_dir = path_join(site, "r");
	char *index = path_join(site, "index.html");
	remove_tree(r_dir);
	assert_int_equal(unlink(index), 0);
	assert_int_equal(symlink(victim_dir, r_dir), 0);
	assert_int_equal(symlink(victim, index), 0);
	char *before = tree_snapshot(fx.outside);
	struct proc r = e2e_run(fx.dir, "build");
	assert_int_equal(r.status, 0);
	char *after = tree_snapshot(fx.outside);
	assert_string_equal(after, before);
	struct stat st;
	assert_int_equal(lstat(r_dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(lstat(index, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	proc_free(&r);
	free(after);
	free(before);
	free(index);
	free(r_dir);
	free(victim);
	free(victim_dir);
	free(site);
	fx_close(&fx);
}

/* A link planted where the build will stage its output (the name is
 * predictable: ._site.tmp-<pid>) is removed, not written through. */
static void a_link_planted_as_the_staging_folder_is_not_followed(void **state)
{
	(void)state;
	struct fixture fx;
	fx_open(&fx);
	char *victim = path_join(fx.outside, "dir");
	char *before = tree_snapshot(fx.outside);
	char err[] = "/tmp/logdown-err-XXXXXX";
	int fe = mkstemp(err);
	assert_true(fe >= 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* the pid survives exec: this is the name logdown will use */
		char name[64];
		snprintf(name, sizeof name, "._site.tmp-%ld", (long)getpid());
		if (chdir(fx.dir) != 0 || symlink(victim, name) != 0 || dup2(fe, 2) < 0)
			_exit(126);
		execl(e2e_binary(), "logdown", "build", (char *)NULL);
		_exit(127);
	}
	close(fe);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	char *text = e2e_read("/", err);
	unlink(err);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("exit %d:\n%s", WEXITSTATUS(st), text);
	char *after = tree_snapshot(fx.outside);
	assert_string_equal(after, before);
	char *page = e2e_read(fx.dir, "_site/r/index.html");
	assert_contains(page, ">2.5</a>");
	free(page);
	free(after);
	free(text);
	free(before);
	free(victim);
	fx_close(&fx);
}

/* --- permissions --- */

/* Runs logdown ARGS as an ordinary user: as root, nobody (65534), whom
 * chmod 000 stops; otherwise as ourselves. */
static struct bounded run_unprivileged(const char *dir, const char *const *argv)
{
	return bounded_run_as(e2e_binary(), dir, argv, NULL, 60, geteuid() == 0 ? 65534 : 0);
}

/* Opens the project to everyone, so that nobody can build it. */
static void open_up(const char *dir)
{
	char *cmd = xasprintf("chmod -R a+rwX '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static const char *const build_argv[] = {"logdown", "build", NULL};

static void unreadable_report_and_log_are_diagnostics(void **state)
{
	(void)state;
	struct fixture fx;
	fx_open(&fx);
	open_up(fx.dir);
	char *md = path_join(fx.dir, "content/r/index.md");
	char *log = path_join(fx.dir, "content/r/logs/a.log");
	char *site = path_join(fx.dir, "_site");
	char *before = tree_snapshot(site);

	assert_int_equal(chmod(md, 0), 0);
	struct bounded r = run_unprivileged(fx.dir, build_argv);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, "content/r/index.md: error: cannot read: Permission denied\n"
				   "logdown: 1 error; the previous output was left as it was\n");
	bounded_free(&r);
	assert_int_equal(chmod(md, 0644), 0);

	assert_int_equal(chmod(log, 0), 0);
	r = run_unprivileged(fx.dir, build_argv);
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "content/r/logs/a.log: error: cannot read: Permission denied\n");
	bounded_free(&r);
	assert_int_equal(chmod(log, 0644), 0);

	char *after = tree_snapshot(site);
	assert_string_equal(after, before);
	free(after);
	free(before);
	free(site);
	free(log);
	free(md);
	fx_close(&fx);
}

static void unwritable_project_folder_is_an_io_error(void **state)
{
	(void)state;
	struct fixture fx;
	fx_open(&fx);
	open_up(fx.dir);
	assert_int_equal(chmod(fx.dir, 0555), 0);
	struct bounded r = run_unprivileged(fx.dir, build_argv);
	assert_int_equal(chmod(fx.dir, 0755), 0);
	assert_int_equal(r.status, 3);
	char *want = xasprintf("logdown: error: %s/._site.tmp-", fx.dir);
	assert_contains(r.err, want);
	assert_contains(r.err, ": cannot create: Permission denied\n");
	free(want);
	bounded_free(&r);
	fx_close(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(result_file_linked_outside),
		cmocka_unit_test(result_path_climbing_out),
		cmocka_unit_test(glob_member_linked_outside),
		cmocka_unit_test(content_linked_outside),
		cmocka_unit_test(bundle_resource_and_static_linked_outside),
		cmocka_unit_test(templates_linked_outside),
		cmocka_unit_test(parsers_linked_outside),
		cmocka_unit_test(links_in_the_previous_output_are_not_followed),
		cmocka_unit_test(a_link_planted_as_the_staging_folder_is_not_followed),
		cmocka_unit_test(unreadable_report_and_log_are_diagnostics),
		cmocka_unit_test(unwritable_project_folder_is_an_io_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
