/* test_manifest_facts.c: limit manifest_facts, the job ids and hosts
 * manifest.json lists for a run (docs/manual.md, "Limits").
 *
 * A CSV result with a job_id and a node column, four rows, three of each
 * distinct: under the default all are listed, each once, in the order
 * found; with the limit lowered to 2 (by its variable, or by site.yaml)
 * the first two are listed and a warning for each list names the run,
 * the limit and how to raise it; at exactly the limit, no warning;
 * --strict makes the warning an error.  And every named limit, this one
 * included, has its row in the manual's Limits table. */
#include "e2e.h"

#include "data/limit.h"

static const char report[] = "---\n"
			     "title: R\n"
			     "runs:\n"
			     "  jobs: jobs.csv\n"
			     "---\n"
			     "Loss {{ max(jobs.rows.loss) }}.\n";

static const char jobs_csv[] = "job_id,node,loss\n"
			       "101,n1,1\n"
			       "102,n2,2\n"
			       "103,n1,3\n"
			       "101,n3,4\n";

static char *dir;

static int teardown(void **state)
{
	(void)state;
	unsetenv("LOGDOWN_LIMIT_MANIFEST_FACTS");
	e2e_drop(&dir);
	e2e_free_kept();
	return 0;
}

static char *project(const char *site_yaml)
{
	char *d = e2e_project(E2E_FILES(E2E_TEXT("content/r/index.md", report),
					E2E_TEXT("content/r/jobs.csv", jobs_csv)));
	if (site_yaml)
		e2e_write(d, "site.yaml", site_yaml);
	return d;
}

static const char warn_ids[] =
	"content/r/jobs.csv: warning: run 'jobs' has more than 2 job ids: manifest.json lists "
	"the first 2 (limit manifest_facts: raise it with limits: in site.yaml or "
	"LOGDOWN_LIMIT_MANIFEST_FACTS)\n";
static const char warn_hosts[] =
	"content/r/jobs.csv: warning: run 'jobs' has more than 2 hosts: manifest.json lists "
	"the first 2 (limit manifest_facts: raise it with limits: in site.yaml or "
	"LOGDOWN_LIMIT_MANIFEST_FACTS)\n";

static void every_id_and_host_is_listed_once_under_the_default(void **state)
{
	(void)state;
	dir = project(NULL);
	struct proc r = e2e_keep_proc(e2e_run(dir, "build"));
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	char *m = e2e_keep(e2e_read(dir, "_site/manifest.json"));
	assert_contains(m, "\"job_ids\": [\"101\", \"102\", \"103\"],\n"
			   "          \"hosts\": [\"n1\", \"n2\", \"n3\"]\n");
}

static void past_the_limit_the_first_are_listed_with_a_warning(void **state)
{
	(void)state;
	dir = project(NULL);
	setenv("LOGDOWN_LIMIT_MANIFEST_FACTS", "2", 1);
	struct proc r = e2e_keep_proc(e2e_run(dir, "build"));
	assert_int_equal(r.status, 0);
	char *err = e2e_keep(xasprintf("%s%slogdown: built 1 report into _site\n",
				       warn_ids, warn_hosts));
	assert_string_equal(r.err, err);
	char *m = e2e_keep(e2e_read(dir, "_site/manifest.json"));
	assert_contains(m, "\"job_ids\": [\"101\", \"102\"],\n"
			   "          \"hosts\": [\"n1\", \"n2\"]\n");

	/* --strict: an error, and the output is left as it was */
	r = e2e_keep_proc(e2e_run(dir, "check --strict --diagnostics=github"));
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "::error file=content/r/jobs.csv::run 'jobs' has more than 2 job "
			       "ids: manifest.json lists the first 2 (limit manifest_facts: raise "
			       "it with limits: in site.yaml or LOGDOWN_LIMIT_MANIFEST_FACTS)\n");
}

static void site_yaml_sets_the_limit_and_at_the_limit_nothing_is_said(void **state)
{
	(void)state;
	dir = project("limits:\n  manifest_facts: 2\n");
	struct proc r = e2e_keep_proc(e2e_run(dir, "build"));
	assert_int_equal(r.status, 0);
	assert_contains(r.err, warn_ids);
	assert_contains(r.err, warn_hosts);
	e2e_drop(&dir);

	dir = project("limits:\n  manifest_facts: 3\n");
	r = e2e_keep_proc(e2e_run(dir, "build"));
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	char *m = e2e_keep(e2e_read(dir, "_site/manifest.json"));
	assert_contains(m, "\"job_ids\": [\"101\", \"102\", \"103\"],\n");
}

static void every_limit_has_its_row_in_the_manual(void **state)
{
	(void)state;
	char *manual = e2e_keep(e2e_read(".", "docs/manual.md"));
	assert_non_null(manual);
	const char *table = strstr(manual, "\n## Limits\n");
	assert_non_null(table);
	for (int i = 0; i < LIMIT_COUNT; i++) {
		char *row = e2e_keep(xasprintf("\n| `%s` | ", limit_name((enum limit_id)i)));
		if (!strstr(table, row))
			fail_msg("docs/manual.md's Limits table has no row for %s",
				 limit_name((enum limit_id)i));
	}
	assert_contains(table, "\n| `manifest_facts` | 1,000 | ");
	assert_contains(table, "`LOGDOWN_LIMIT_MANIFEST_FACTS` (100,000,000) |\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(every_id_and_host_is_listed_once_under_the_default,
					  teardown),
		cmocka_unit_test_teardown(past_the_limit_the_first_are_listed_with_a_warning,
					  teardown),
		cmocka_unit_test_teardown(site_yaml_sets_the_limit_and_at_the_limit_nothing_is_said,
					  teardown),
		cmocka_unit_test_teardown(every_limit_has_its_row_in_the_manual, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
