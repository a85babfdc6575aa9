/* test_rootpath.c: the output does not depend on how the project folder
 * is named on the command line.
 *
 * One project is built as `logdown build .` from inside it, as `logdown
 * build /abs/path/proj` from /, and as `logdown build ./proj/` from its
 * parent: the three sites must be byte for byte the same, and every
 * tooltip names its source file relative to the project.  Diagnostics
 * may keep naming paths as given. */
#include "e2e.h"

/* tmp/proj: a report with a value (a link with a tooltip), a computed
 * value (its inputs in a tooltip), a parser's derived field (inputs
 * made while parsing), a table, a run outside content/ through "../",
 * and one whose file: is an absolute path inside the project. */
static char *project(char **proj_out)
{
	char *tmp = e2e_tmpdir();
	char *proj = path_join(tmp, "proj");
	struct buf log = BUF_INIT;
	assert_true(file_read("tests/fixtures/cerebras/bs512.log", &log, NULL));
	e2e_write(proj, "content/r/logs/a.log", buf_data(&log));
	e2e_write(proj, "logs/shared.log", buf_data(&log));
	e2e_write(proj, "data/abs.log", buf_data(&log));
	buf_free(&log);
	char *md = xasprintf("---\ntitle: R\nruns:\n  a: logs/a.log\n  s: ../../logs/shared.log\n"
			     "  x: %s/data/abs.log\n---\n"
			     "Loss {{ a.final_loss }}, doubled {{ a.final_loss * 2 :.2f }}, rate "
			     "{{ a.throughput :.1f }}; shared {{ s.final_step }}, abs {{ x.final_step "
			     "}}, sum {{ s.final_step + x.final_step }}.\n\n"
			     "```{table}\nrows: [a, s, x]\ncolumns:\n  Loss: final_loss\n"
			     "  Mean rate: mean(train.rate) :.1f\n```\n",
			     proj);
	e2e_write(proj, "content/r/index.md", md);
	free(md);
	*proj_out = proj;
	return tmp;
}

static void build_ok(const char *cwd, const char *args)
{
	struct proc r = e2e_run(cwd, "%s", args);
	if (r.status != 0)
		fail_msg("logdown %s failed:\n%s", args, r.err);
	proc_free(&r);
}

static void output_is_the_same_however_the_project_is_named(void **state)
{
	(void)state;
	char *proj;
	char *tmp = project(&proj);
	char *cmd;

	cmd = xasprintf("build . -o '%s/dot'", tmp);
	build_ok(proj, cmd);
	free(cmd);
	cmd = xasprintf("build '%s' -o '%s/abs'", proj, tmp);
	build_ok("/", cmd);
	free(cmd);
	cmd = xasprintf("build ./proj/ -o '%s/rel'", tmp);
	build_ok(tmp, cmd);
	free(cmd);

	int st;
	char *diff = e2e_sh(&st, "diff -r '%s/dot' '%s/abs' 2>&1; diff -r '%s/dot' '%s/rel' 2>&1",
			    tmp, tmp, tmp, tmp);
	if (st != 0 || *diff)
		fail_msg("the sites differ:\n%s", diff);
	free(diff);

	/* no site names the folder, however given */
	char *grep = e2e_sh(&st, "grep -rl -e '%s' -e 'proj/' '%s/dot' '%s/abs' '%s/rel'", proj, tmp,
			    tmp, tmp);
	assert_string_equal(grep, "");
	free(grep);

	char *page = e2e_read(tmp, "abs/r/index.html");
	assert_non_null(page);
	/* a value: its file and line */
	assert_non_null(strstr(page, "<a class=\"ld-value\" href=\"logs/a.log.html#L53.1\" "
				     "title=\"content/r/logs/a.log:53\">7.12500</a>"));
	/* a computed value: its inputs */
	assert_non_null(strstr(page, "<span class=\"ld-value\" title=\"a.final_loss = 7.12500 "
				     "(content/r/logs/a.log:53)\">14.25</span>"));
	/* a parser's derived field: inputs made while parsing */
	assert_non_null(strstr(page, "title=\"samples = 512000 (content/r/logs/a.log:58); "
				     "total_time = 175.070497198 (content/r/logs/a.log:58)\""));
	/* a run outside content/, as written from the report's folder */
	assert_non_null(strstr(page, "title=\"content/r/../../logs/shared.log:53\""));
	/* a run whose file: is absolute: relative to the project too */
	assert_non_null(strstr(page, "title=\"data/abs.log:53\""));
	assert_non_null(strstr(page, "title=\"s.final_step = 1000 "
				     "(content/r/../../logs/shared.log:53); x.final_step = 1000 "
				     "(data/abs.log:53)\""));
	free(page);

	remove_tree(tmp);
	free(proj);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(output_is_the_same_however_the_project_is_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
