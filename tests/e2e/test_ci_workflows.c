/* test_ci_workflows.c: the CI files `logdown new` writes, run here.
 *
 * A project from `logdown new`, its _site built as a user would commit
 * it; then the `run:` steps of .github/workflows/report.yml's job
 * `report` are run in order with `bash -e`, the way the runner does (a
 * step after a failed one only when its `if:` says always()), skipping
 * the `uses:` steps and the one with `id: install`, with PATH leading to
 * the logdown under test and GITHUB_STEP_SUMMARY a file; and so are
 * .gitlab-ci.yml's `script:` lines of the job `report` (its
 * before_script installs logdown), stopping at the first that fails.
 * First with the committed site up to date (every step passes, the
 * summary says nothing changed), then after a log line changed (the
 * check fails with exit 1 and annotations; the summary is the exact
 * Markdown diff).  Then the files' shape: the jobs, the actions and
 * their major versions, the Pages switch, the Debian packages the
 * install step names (each one tools/deps.sh names too), and the manual
 * showing both files as they are written. */
#include "e2e.h"

#include <sys/stat.h>

#include "base/diag.h"
#include "data/value.h"
#include "data/yamldoc.h"

/* A project made by `logdown new`, with its site built into _site (the
 * committed site), in a temporary folder that also holds bin/logdown
 * (the binary under test) and the runner's folders. */
struct ci {
	char *tmp;     /* the temporary folder */
	char *proj;    /* tmp/proj */
	char *bin;     /* tmp/bin */
	char *runner;  /* tmp/runner: RUNNER_TEMP */
	char *summary; /* tmp/summary.md: GITHUB_STEP_SUMMARY */
};

static struct ci *ci_new(void)
{
	struct ci *c = xcalloc(1, sizeof *c);
	c->tmp = e2e_tmpdir();
	c->proj = path_join(c->tmp, "proj");
	c->bin = path_join(c->tmp, "bin");
	c->runner = path_join(c->tmp, "runner");
	c->summary = path_join(c->tmp, "summary.md");
	assert_true(mkdir_p(c->bin));
	char *link = path_join(c->bin, "logdown");
	assert_int_equal(symlink(e2e_binary(), link), 0);
	free(link);
	e2e_ok(c->tmp, "new proj");
	/* what the user commits: the site as a build writes it */
	e2e_ok(c->proj, "build");
	return c;
}

static void ci_free(struct ci *c)
{
	if (!c)
		return;
	e2e_drop(&c->tmp);
	free(c->proj);
	free(c->bin);
	free(c->runner);
	free(c->summary);
	free(c);
}

static struct ci *fixture;
static char *scratch; /* a test's other folder */
static struct value *trees[8]; /* the YAML parsed, freed after the test */
static size_t ntrees;

static int teardown(void **state)
{
	(void)state;
	ci_free(fixture);
	fixture = NULL;
	e2e_drop(&scratch);
	while (ntrees)
		value_free(trees[--ntrees]);
	e2e_free_kept();
	return 0;
}

/* The YAML file rel of the project, parsed (freed after the test). */
static struct value *load_yaml(const char *dir, const char *rel)
{
	char *text = e2e_read(dir, rel);
	assert_non_null(text);
	struct diag *d = diag_new(stderr, DIAG_TEXT, false);
	struct value *v = yamldoc_parse(text, strlen(text), rel, 0, d);
	diag_free(d);
	free(text);
	assert_non_null(v);
	assert_true(ntrees < ARRAY_LEN(trees));
	trees[ntrees++] = v;
	assert_int_equal(v->kind, VALUE_MAP);
	return v;
}

static const char *str(const struct value *map, const char *key)
{
	const struct value *v = map ? value_get(map, key) : NULL;
	return v && v->kind == VALUE_STRING ? v->text : NULL;
}

static const struct value *at(const struct value *map, const char *path)
{
	/* "jobs.report.steps" */
	char *copy = xstrdup(path), *save = NULL;
	const struct value *v = map;
	for (char *k = strtok_r(copy, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
		v = v->kind == VALUE_MAP ? value_get(v, k) : NULL;
	free(copy);
	assert_non_null(v);
	return v;
}

/* Every file the project's steps may have left behind in a previous
 * run, gone: each CI job starts from a fresh clone. */
static void ci_clean(struct ci *c)
{
	const char *left[] = {"public", "logdown-diff.md", ".logdown-cache"};
	for (size_t i = 0; i < ARRAY_LEN(left); i++) {
		char *p = path_join(c->proj, left[i]);
		remove_tree(p);
		free(p);
	}
	remove_tree(c->runner);
	assert_true(mkdir_p(c->runner));
	assert_true(file_write(c->summary, "", 0));
}

/* The environment a step runs in: the workflow's env (or GitLab's
 * variables), the runner's folders, and PATH leading to bin/logdown. */
static char *step_env(const struct ci *c, const struct value *vars)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "env PATH='%s':\"$PATH\" RUNNER_TEMP='%s' GITHUB_STEP_SUMMARY='%s'", c->bin,
		   c->runner, c->summary);
	for (size_t i = 0; vars && i < vars->count; i++)
		buf_printf(&b, " %s='%s'", vars->keys[i], vars->items[i]->text);
	return buf_detach(&b);
}

/* Runs script with bash -e in the project; returns its exit status and
 * (kept) what it printed on stdout and stderr. */
static int run_script(const struct ci *c, const char *env, const char *script, char **out)
{
	char *file = path_join(c->tmp, "step.sh");
	assert_true(file_write(file, script, strlen(script)));
	int status;
	*out = e2e_keep(e2e_sh(&status, "cd '%s' && %s bash -e '%s' 2>&1", c->proj, env, file));
	free(file);
	return status;
}

#define MAX_STEPS 16

/* What the steps did: each run step's name, exit status (-1: skipped)
 * and output. */
struct steps {
	size_t n;
	const char *name[MAX_STEPS];
	int status[MAX_STEPS];
	char *out[MAX_STEPS];
};

/* The job `report` of the GitHub workflow, its run steps run in order
 * as the runner does. */
static void run_github(struct ci *c, struct steps *s)
{
	ci_clean(c);
	struct value *w = load_yaml(c->proj, ".github/workflows/report.yml");
	char *env = step_env(c, value_get(w, "env"));
	const struct value *steps = at(w, "jobs.report.steps");
	bool failed = false;
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < steps->count; i++) {
		const struct value *step = steps->items[i];
		const char *id = str(step, "id"), *run = str(step, "run"), *cond = str(step, "if");
		if (value_get(step, "uses") || (id && strcmp(id, "install") == 0))
			continue;
		assert_non_null(run);
		/* the only condition a run step may have: one this test can
		 * follow */
		if (cond)
			assert_string_equal(cond, "always()");
		assert_true(s->n < MAX_STEPS);
		s->name[s->n] = e2e_keep(xstrdup(str(step, "name")));
		if (failed && !cond) {
			s->status[s->n++] = -1;
			continue;
		}
		s->status[s->n] = run_script(c, env, run, &s->out[s->n]);
		failed = failed || s->status[s->n] != 0;
		s->n++;
	}
	free(env);
}

/* The job `report` of .gitlab-ci.yml: its script lines run in order,
 * up to the first that fails. */
static void run_gitlab(struct ci *c, struct steps *s)
{
	ci_clean(c);
	struct value *g = load_yaml(c->proj, ".gitlab-ci.yml");
	char *env = step_env(c, value_get(g, "variables"));
	const struct value *script = at(g, "report.script");
	assert_int_equal(script->kind, VALUE_LIST);
	memset(s, 0, sizeof *s);
	bool failed = false;
	for (size_t i = 0; i < script->count; i++) {
		assert_true(s->n < MAX_STEPS);
		assert_int_equal(script->items[i]->kind, VALUE_STRING);
		s->name[s->n] = e2e_keep(xstrdup(script->items[i]->text));
		if (failed) {
			s->status[s->n++] = -1;
			continue;
		}
		s->status[s->n] = run_script(c, env, script->items[i]->text, &s->out[s->n]);
		failed = s->status[s->n] != 0;
		s->n++;
	}
	free(env);
}

/* The i-th step ran with status and printed exactly out (NULL: anything). */
static void expect_step(const struct steps *s, size_t i, const char *name, int status,
			const char *out)
{
	assert_true(i < s->n);
	if (strncmp(s->name[i], name, strlen(name)) != 0)
		fail_msg("step %zu is '%s', not '%s'", i, s->name[i], name);
	if (s->status[i] != status)
		fail_msg("step '%s' exited %d, not %d; it printed:\n%s", name, s->status[i], status,
			 s->out[i] ? s->out[i] : "(skipped)");
	if (out)
		assert_string_equal(s->out[i], out);
}

static void change_the_last_loss(struct ci *c)
{
	char *log = e2e_read(c->proj, "content/first-report/logs/bs512.log");
	char *p = strstr(log, "Step=1000, Loss=7.12500");
	assert_non_null(p);
	memcpy(p + strlen("Step=1000, Loss="), "7.31250", 7);
	e2e_write(c->proj, "content/first-report/logs/bs512.log", log);
	free(log);
}

/* What the summary (and GitLab's logdown-diff.md) says after the last
 * loss of the starter's log changed from 7.12500 to 7.31250. */
static const char loss_changed[] =
	"## logdown diff: 4 changes in 1 report\n"
	"\n"
	"### `first-report` (`content/first-report/index.md`)\n"
	"\n"
	"| Where | What | Old | New | Change | Source |\n"
	"|---|---|---|---|---|---|\n"
	"| `content/first-report/logs/bs512.log` | input | size 1715, hash 18e840f534ae, parser "
	"cerebras | size 1715, hash 3297452ee2de, parser cerebras | hash 18e840f534ae → "
	"3297452ee2de |  |\n"
	"| `content/first-report/index.md:31:53` | `{{ bs512.final_loss }}` | 7.12500 | 7.31250 | "
	"+2.6% | `content/first-report/logs/bs512.log:13` → "
	"`content/first-report/logs/bs512.log:13` |\n"
	"| `content/first-report/index.md:38:4` | Table 1 (tbl-steps), row 1000, column Loss | "
	"7.12 | 7.31 | +2.7% |  |\n"
	"| `content/first-report/index.md:49:4` | Figure 1 (fig-loss), series 1 | 10 points "
	"(af5b9cb41d8e) | 10 points (be391ceaa32a) |  |  |\n";

static const char stale_page[] =
	"::error file=_site/first-report/index.html::differs from what a build writes (the "
	"output is stale: rebuild and commit it)\n";

static void github_steps_pass_on_an_up_to_date_site(void **state)
{
	(void)state;
	struct ci *c = fixture = ci_new();
	struct steps s;
	run_github(c, &s);
	assert_int_equal(s.n, 3);
	/* with --diagnostics=github, no summary line */
	expect_step(&s, 0, "Build the site", 0, "");
	expect_step(&s, 1, "Check the committed site", 0, NULL);
	expect_step(&s, 2, "What changed", 0, "");
	char *summary = e2e_keep(e2e_read("/", c->summary));
	assert_string_equal(summary, "## logdown diff: no change\n");
	/* the site the artifact and Pages take */
	char *index = e2e_keep(path_join(c->runner, "site/first-report/index.html"));
	assert_true(is_file(index));
}

static void github_steps_fail_the_check_and_summarise_a_changed_log(void **state)
{
	(void)state;
	struct ci *c = fixture = ci_new();
	change_the_last_loss(c);
	struct steps s;
	run_github(c, &s);
	assert_int_equal(s.n, 3);
	expect_step(&s, 0, "Build the site", 0, NULL);
	expect_step(&s, 1, "Check the committed site", 1, NULL);
	assert_contains(s.out[1], stale_page);
	assert_contains(s.out[1], "::error file=_site/manifest.json::differs from what a build "
				  "writes (the output is stale: rebuild and commit it)\n");
	/* if: always(): the summary is written although the check failed */
	expect_step(&s, 2, "What changed", 0, "");
	char *summary = e2e_keep(e2e_read("/", c->summary));
	assert_string_equal(summary, loss_changed);
}

/* Without a committed _site (a project that ignores it) the check says
 * so and passes, and there is no summary. */
static void github_steps_without_a_committed_site_say_so(void **state)
{
	(void)state;
	struct ci *c = fixture = ci_new();
	char *site = e2e_keep(path_join(c->proj, "_site"));
	remove_tree(site);
	struct steps s;
	run_github(c, &s);
	expect_step(&s, 0, "Build the site", 0, NULL);
	expect_step(&s, 1, "Check the committed site", 0,
		    "::notice::no committed _site to check: build it with logdown build and "
		    "commit it\n");
	expect_step(&s, 2, "What changed", 0, "");
	char *summary = e2e_keep(e2e_read("/", c->summary));
	assert_string_equal(summary, "");
}

static void gitlab_script_passes_on_an_up_to_date_site(void **state)
{
	(void)state;
	struct ci *c = fixture = ci_new();
	struct steps s;
	run_gitlab(c, &s);
	assert_int_equal(s.n, 3);
	expect_step(&s, 0, "logdown build . -o public", 0,
		    "logdown: built 1 report into public\n");
	expect_step(&s, 1, "if [ -f _site/manifest.json ]", 0, "");
	expect_step(&s, 2, "if [ -d _site ]", 0, NULL);
	char *diff = e2e_keep(e2e_read(c->proj, "logdown-diff.md"));
	assert_string_equal(diff, "## logdown diff: no change\n");
	char *index = e2e_keep(path_join(c->proj, "public/first-report/index.html"));
	assert_true(is_file(index));
}

static void gitlab_script_fails_the_check_after_writing_the_diff(void **state)
{
	(void)state;
	struct ci *c = fixture = ci_new();
	change_the_last_loss(c);
	struct steps s;
	run_gitlab(c, &s);
	assert_int_equal(s.n, 3);
	expect_step(&s, 0, "logdown build . -o public", 0, NULL);
	expect_step(&s, 1, "if [ -f _site/manifest.json ]", 0, "");
	expect_step(&s, 2, "if [ -d _site ]", 1, NULL);
	assert_contains(s.out[2], "_site/first-report/index.html: error: differs from what a "
				  "build writes (the output is stale: rebuild and commit it)\n");
	/* the text summary names the value */
	assert_contains(s.out[2], "{{ bs512.final_loss }}: 7.12500 → 7.31250 (+2.6%)");
	char *diff = e2e_keep(e2e_read(c->proj, "logdown-diff.md"));
	assert_string_equal(diff, loss_changed);
}

/* The words of the apt-get install line in text (its continuation
 * lines joined), after --no-install-recommends. */
static size_t apt_packages(const char *text, char **words, size_t max)
{
	const char *p = strstr(text, "apt-get install -y --no-install-recommends ");
	assert_non_null(p);
	p += strlen("apt-get install -y --no-install-recommends ");
	size_t n = 0;
	while (*p && *p != '\n') {
		while (*p == ' ' || (*p == '\\' && p[1] == '\n'))
			p += *p == '\\' ? 2 : 1;
		size_t len = strcspn(p, " \n\\");
		if (!len)
			break;
		assert_true(n < max);
		words[n++] = e2e_keep(xstrndup(p, len));
		p += len;
	}
	return n;
}

/* Whether word is one of tools/deps.sh's PKGS. */
static bool in_deps(const char *deps, const char *word)
{
	const char *from = strstr(deps, "PKGS=\"");
	assert_non_null(from);
	from += strlen("PKGS=\"");
	const char *to = strchr(from, '"');
	size_t n = strlen(word);
	for (const char *p = from; p && p < to; p = strpbrk(p, " \n")) {
		p += strspn(p, " \n");
		if (strncmp(p, word, n) == 0 && strchr(" \n\"", p[n]))
			return true;
	}
	return false;
}

static void the_files_have_the_jobs_and_actions_the_manual_shows(void **state)
{
	(void)state;
	char *dir = scratch = e2e_tmpdir();
	e2e_ok(dir, "new");
	char *deps = e2e_keep(e2e_read(".", "tools/deps.sh"));
	char *manual = e2e_keep(e2e_read(".", "docs/manual.md"));
	assert_non_null(deps);
	assert_non_null(manual);

	struct value *w = load_yaml(dir, ".github/workflows/report.yml");
	assert_string_equal(str(w, "name"), "report");
	const struct value *on = at(w, "on");
	assert_int_equal(on->count, 2);
	assert_non_null(value_get(on, "push"));
	assert_non_null(value_get(on, "pull_request"));
	assert_string_equal(str(at(w, "permissions"), "contents"), "read");
	const struct value *jobs = at(w, "jobs");
	assert_int_equal(jobs->count, 2);
	assert_string_equal(jobs->keys[0], "report");
	assert_string_equal(jobs->keys[1], "pages");
	/* the actions, pinned to their major versions, in order */
	const char *uses[] = {"actions/checkout@v4", "actions/upload-artifact@v4",
			      "actions/upload-pages-artifact@v3"};
	const struct value *steps = at(w, "jobs.report.steps");
	size_t k = 0;
	for (size_t i = 0; i < steps->count; i++)
		if (str(steps->items[i], "uses")) {
			assert_true(k < ARRAY_LEN(uses));
			assert_string_equal(str(steps->items[i], "uses"), uses[k++]);
		}
	assert_int_equal(k, ARRAY_LEN(uses));
	assert_string_equal(str(steps->items[1], "id"), "install");
	const char *pages_if = "vars.LOGDOWN_PAGES == 'true' && github.event_name == 'push' && "
			       "github.ref_name == github.event.repository.default_branch";
	assert_string_equal(str(steps->items[steps->count - 1], "if"), pages_if);
	const struct value *pages = at(w, "jobs.pages");
	assert_string_equal(str(pages, "needs"), "report");
	assert_string_equal(str(pages, "if"), pages_if);
	assert_string_equal(str(at(pages, "permissions"), "pages"), "write");
	assert_string_equal(str(at(pages, "permissions"), "id-token"), "write");
	assert_string_equal(str(at(pages, "environment"), "name"), "github-pages");
	const struct value *deploy = at(pages, "steps")->items[0];
	assert_string_equal(str(deploy, "uses"), "actions/deploy-pages@v4");
	assert_string_equal(str(deploy, "id"), "deploy");

	/* the install step's packages are logdown's own (tools/deps.sh) */
	char *words[64];
	size_t n = apt_packages(str(steps->items[1], "run"), words, ARRAY_LEN(words));
	assert_true(n >= 15);
	for (size_t i = 0; i < n; i++)
		if (!in_deps(deps, words[i]))
			fail_msg("the workflow installs %s, which tools/deps.sh does not name",
				 words[i]);

	struct value *g = load_yaml(dir, ".gitlab-ci.yml");
	const struct value *stages = at(g, "stages");
	assert_int_equal(stages->count, 2);
	assert_string_equal(stages->items[0]->text, "report");
	assert_string_equal(stages->items[1]->text, "deploy");
	assert_string_equal(str(at(g, "report"), "stage"), "report");
	assert_string_equal(str(at(g, "report.artifacts"), "when"), "always");
	assert_string_equal(str(at(g, "pages"), "stage"), "deploy");
	assert_string_equal(at(g, "pages.rules")->items[0]->keys[0], "if");
	assert_string_equal(str(at(g, "pages.rules")->items[0], "if"),
			    "$LOGDOWN_PAGES == \"true\" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH");
	assert_string_equal(at(g, "pages.artifacts.paths")->items[0]->text, "public/");
	/* the same packages, and what a bare Debian image lacks to clone */
	const struct value *before = at(g, "report.before_script");
	char *gwords[64];
	size_t gn = apt_packages(before->items[1]->text, gwords, ARRAY_LEN(gwords));
	assert_int_equal(gn, n + 2);
	assert_string_equal(gwords[0], "ca-certificates");
	assert_string_equal(gwords[1], "git");
	for (size_t i = 0; i < n; i++)
		assert_string_equal(gwords[i + 2], words[i]);

	/* the manual shows both files whole, as logdown new writes them */
	const char *files[] = {".github/workflows/report.yml", ".gitlab-ci.yml"};
	for (size_t i = 0; i < ARRAY_LEN(files); i++) {
		char *text = e2e_keep(e2e_read(dir, files[i]));
		char *block = e2e_keep(xasprintf("```yaml\n%s```\n", text));
		if (!strstr(manual, block))
			fail_msg("docs/manual.md does not show %s as logdown new writes it",
				 files[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(github_steps_pass_on_an_up_to_date_site, teardown),
		cmocka_unit_test_teardown(github_steps_fail_the_check_and_summarise_a_changed_log,
					  teardown),
		cmocka_unit_test_teardown(github_steps_without_a_committed_site_say_so, teardown),
		cmocka_unit_test_teardown(gitlab_script_passes_on_an_up_to_date_site, teardown),
		cmocka_unit_test_teardown(gitlab_script_fails_the_check_after_writing_the_diff,
					  teardown),
		cmocka_unit_test_teardown(the_files_have_the_jobs_and_actions_the_manual_shows,
					  teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
