/* test_runs.c: the runs: of a report's front matter. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/fsutil.h"
#include "parse/logparse.h"
#include "data/run.h"
#include "parse/runs.h"
#include "base/util.h"
#include "data/value.h"
#include "data/yamldoc.h"
#include "capture.h"

#define MD "content/hw/index.md"

/* The tests run inside a project made in a temporary folder, so that
 * diagnostics show the same relative paths on every machine. */
static char *tmp, *old_cwd, *root_real;
static struct parser_set *parsers;

static void put(const char *rel, const char *text)
{
	char *parent = path_dirname(rel);
	assert_true(mkdir_p(parent));
	assert_true(file_write(rel, text, strlen(text)));
	free(parent);
}

static int group_setup(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/logdown-test-runs-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	tmp = xstrdup(tmpl);
	old_cwd = getcwd(NULL, 0);
	char *outside = path_join(tmp, "outside");
	char *proj = path_join(tmp, "proj");
	assert_true(mkdir_p(outside));
	assert_true(mkdir_p(proj));
	char *secret = path_join(outside, "secret.log");
	assert_true(file_write(secret, "secret: 1\n", 10));
	assert_int_equal(chdir(proj), 0);
	root_real = path_real(".");

	put("content/hw/logs/a.json", "{\"loss\": 7.125,\n \"steps\": [{\"s\": 1}, {\"s\": 2}]}\n");
	put("content/hw/logs/bs512.log", "step: 100\nloss: 7.12500\n");
	put("content/hw/logs/bs1024.log", "step: 100\nloss: 6.5\n");
	put("content/hw/logs/bs2048.log", "step: 100\nloss: 5.96367\n");
	put("content/hw/logs/notes.txt", "not a run\n");
	put("content/hw/logs/loss.csv", "1,0.51\n2,0.47\n3,0.44\n");
	put("content/hw/logs/jobs.txt", "JobID|State\n4242|COMPLETED\n4243|FAILED\n");
	put("content/hw/logs/acc.tsv", "epoch\tval acc\n1\t0.81\n2\t0.86\n");
	put("content/hw/logs/plain.txt", "nothing to detect here\n");
	assert_true(mkdir_p("content/hw/logs/folder.log"));
	put("shared/common.log", "x: 1\n");
	assert_int_equal(symlink("../../../shared/common.log", "content/hw/logs/alias.log"), 0);
	assert_int_equal(symlink(secret, "content/hw/logs/leak.log"), 0);
	put("content/hw/leaky/bs1.log", "a: 1\n");
	assert_int_equal(symlink(secret, "content/hw/leaky/bs2.log"), 0);
	put("content/[draft] x/logs/r1.log", "a: 1\n");
	/* Real Cerebras logs, for detection. */
	static const char *const cerebras[] = {"bs512.log", "bs1024.log", "bs2048.log"};
	assert_true(mkdir_p("content/hw/cerebras"));
	for (size_t i = 0; i < ARRAY_LEN(cerebras); i++) {
		char *from = xasprintf("%s/content/hw07-ai-accelerators/logs/cerebras/%s", old_cwd,
				       cerebras[i]);
		char *to = path_join("content/hw/cerebras", cerebras[i]);
		assert_true(file_copy(from, to));
		free(to);
		free(from);
	}

	struct diag *d = diag_new(stderr, DIAG_TEXT, false);
	parsers = parsers_load(NULL, NULL, d);
	assert_int_equal(diag_errors(d), 0);
	diag_free(d);
	free(secret);
	free(proj);
	free(outside);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	parsers_free(parsers);
	assert_int_equal(chdir(old_cwd), 0);
	remove_tree(tmp);
	free(tmp);
	free(old_cwd);
	free(root_real);
	return 0;
}

/* A report's front matter and what loading its runs gave. */
struct fm {
	struct capture c;
	char *md;
	struct value *meta;
	struct report_runs rr;
	bool ok;
};

/* Loads the runs of a report in `dir` whose front matter is yaml. */
static void load_in(struct fm *f, const char *dir, const char *md, const char *yaml)
{
	cap_open(&f->c);
	f->md = xasprintf("---\n%s---\nbody\n", yaml);
	diag_add_source(f->c.d, md, f->md, strlen(f->md));
	f->meta = yamldoc_parse(yaml, strlen(yaml), md, 1, f->c.d);
	assert_non_null(f->meta);
	f->ok = report_runs_load(&f->rr, value_get(f->meta, "runs"), dir, root_real, parsers,
				 f->c.d);
}

static void load(struct fm *f, const char *yaml)
{
	load_in(f, "content/hw", MD, yaml);
}

static void fm_free(struct fm *f)
{
	report_runs_free(&f->rr);
	value_free(f->meta);
	cap_close(&f->c);
	free(f->md);
}

static const struct runset *set_named(const struct report_runs *rr, const char *name)
{
	for (size_t i = 0; i < rr->count; i++)
		if (strcmp(rr->sets[i].name, name) == 0)
			return &rr->sets[i];
	return NULL;
}

static void check_text(const struct datum *d, const char *text)
{
	assert_non_null(d);
	assert_non_null(d->text);
	if (d->len != strlen(text) || memcmp(d->text, text, d->len) != 0)
		fail_msg("text '%.*s', expected '%s'", (int)d->len, d->text, text);
}

static void path_alone_is_read_with_the_parser_detected(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n  bench: logs/a.json\n");
	assert_string_equal(cap_text(&f.c), "");
	assert_true(f.ok);
	assert_int_equal(f.rr.count, 1);
	const struct runset *s = &f.rr.sets[0];
	assert_string_equal(s->name, "bench");
	assert_false(s->is_set);
	assert_int_equal(s->count, 1);
	const struct run *r = s->runs[0];
	assert_string_equal(run_name(r), "bench");
	assert_string_equal(run_parser(r), "json");
	assert_string_equal(run_file(r), "content/hw/logs/a.json");
	check_text(run_field(r, "loss"), "7.125");
	assert_int_equal(series_row_count(run_series(r, "steps")), 2);
	fm_free(&f);
}

static void map_names_the_file_and_the_parser(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n"
		 "  cs512: {file: logs/bs512.log, parser: keyvalue}\n"
		 "  common:\n"
		 "    file: logs/alias.log\n"
		 "    parser: keyvalue\n");
	assert_string_equal(cap_text(&f.c), "");
	assert_true(f.ok);
	assert_int_equal(f.rr.count, 2);
	const struct run *r = f.rr.sets[0].runs[0];
	assert_string_equal(run_name(r), "cs512");
	assert_string_equal(run_parser(r), "keyvalue");
	check_text(run_field(r, "loss"), "7.12500");
	assert_int_equal(run_field(r, "loss")->line, 2);
	/* A link that stays inside the project is followed. */
	const struct run *c = set_named(&f.rr, "common")->runs[0];
	check_text(run_field(c, "x"), "1");
	fm_free(&f);
}

static void glob_members_are_sorted_and_named_by_stem(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n"
		 "  cs: { glob: \"logs/bs*.log\", parser: keyvalue,\n"
		 "        name_pattern: 'bs(?<batch_size>\\d+)' }\n");
	assert_string_equal(cap_text(&f.c), "");
	assert_true(f.ok);
	const struct runset *s = set_named(&f.rr, "cs");
	assert_non_null(s);
	assert_true(s->is_set);
	assert_int_equal(s->count, 3);
	/* Bytewise by path: bs1024 < bs2048 < bs512. */
	assert_string_equal(run_name(s->runs[0]), "bs1024");
	assert_string_equal(run_name(s->runs[1]), "bs2048");
	assert_string_equal(run_name(s->runs[2]), "bs512");
	assert_string_equal(run_file(s->runs[2]), "content/hw/logs/bs512.log");
	const struct datum *bs = run_field(s->runs[2], "batch_size");
	assert_non_null(bs);
	assert_int_equal(bs->kind, DATUM_NUMBER);
	assert_true(bs->num == 512);
	check_text(bs, "512");
	assert_int_equal(bs->line, 0);
	check_text(run_field(s->runs[0], "loss"), "6.5");
	fm_free(&f);
}

static void glob_of_real_logs_detects_their_parser(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n"
		 "  cs: {glob: \"cerebras/bs*.log\", name_pattern: 'bs(?<batch_size>\\d+)'}\n"
		 "  cs512: cerebras/bs512.log\n");
	assert_string_equal(cap_text(&f.c), "");
	assert_true(f.ok);
	const struct runset *s = set_named(&f.rr, "cs");
	assert_int_equal(s->count, 3);
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(run_parser(s->runs[i]), "cerebras");
	/* bs1024.log has no "Effective batch size" line: the name gives it. */
	const struct datum *bs = run_field(s->runs[0], "batch_size");
	assert_int_equal(bs->kind, DATUM_NUMBER);
	check_text(bs, "1024");
	assert_int_equal(bs->line, 0);
	const struct run *r = set_named(&f.rr, "cs512")->runs[0];
	check_text(run_field(r, "final_loss"), "7.12500");
	assert_int_equal(run_field(r, "final_loss")->line, 53);
	assert_int_equal(run_field(r, "batch_size")->line, 1);
	assert_int_equal(series_row_count(run_series(r, "train")), 10);
	fm_free(&f);
}

static void glob_skips_folders_and_escapes_the_report_folder(void **state)
{
	(void)state;
	struct fm f;
	/* folder.log matches but is a folder: not a member. */
	load(&f, "runs:\n  all: {glob: \"logs/[bf]*.log\", parser: keyvalue}\n");
	assert_string_equal(cap_text(&f.c), "");
	const struct runset *s = set_named(&f.rr, "all");
	assert_int_equal(s->count, 3);
	assert_string_equal(run_name(s->runs[0]), "bs1024");
	fm_free(&f);
	/* A report folder named with glob characters globs below itself. */
	load_in(&f, "content/[draft] x", "content/[draft] x/index.md",
		"runs:\n  r: {glob: \"logs/r*.log\", parser: keyvalue}\n");
	assert_string_equal(cap_text(&f.c), "");
	assert_int_equal(set_named(&f.rr, "r")->count, 1);
	fm_free(&f);
}

static void glob_without_a_match_is_an_error(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n  cs: {glob: \"logs/gpu*.log\", parser: keyvalue}\n");
	assert_false(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":3:14: error: no file matches logs/gpu*.log (in content/hw)\n"
			    "    3 |   cs: {glob: \"logs/gpu*.log\", parser: keyvalue}\n"
			    "      |              ^~~~~~~~~~~~~~~\n");
	/* The set did not load: naming it is a note, not another error. */
	assert_int_equal(f.rr.count, 0);
	assert_int_equal(f.rr.nfailed, 1);
	assert_string_equal(f.rr.failed[0], "cs");
	fm_free(&f);
}

static void name_pattern_that_does_not_match_gives_missing_fields(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n"
		 "  cs:\n"
		 "    glob: logs/bs5*.log\n"
		 "    parser: keyvalue\n"
		 "    name_pattern: 'gpu(?<gpus>\\d+)'\n");
	assert_true(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":6:19: warning: name_pattern does not match 'bs512.log': its fields "
			       "are missing for run 'bs512'\n"
			       "    6 |     name_pattern: 'gpu(?<gpus>\\d+)'\n"
			       "      |                   ^~~~~~~~~~~~~~~~~\n");
	const struct datum *g = run_field(set_named(&f.rr, "cs")->runs[0], "gpus");
	assert_non_null(g);
	assert_int_equal(g->kind, DATUM_MISSING);
	fm_free(&f);
}

static void name_pattern_errors_point_into_the_pattern(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n  cs: {glob: logs/bs*.log, parser: keyvalue, name_pattern: 'bs(?<n>\\d+'}\n");
	assert_false(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":3:71: error: name_pattern does not compile: missing closing "
			       "parenthesis\n"
			       "    3 |   cs: {glob: logs/bs*.log, parser: keyvalue, name_pattern: "
			       "'bs(?<n>\\d+'}\n"
			       "      |                                                             "
			       "          ^\n");
	fm_free(&f);
	load(&f, "runs:\n  cs: {glob: logs/bs*.log, parser: keyvalue, name_pattern: 'bs\\d+'}\n");
	assert_false(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":3:60: error: name_pattern has no named group, such as "
			       "(?<batch_size>\\d+): nothing would become a field\n"
			       "    3 |   cs: {glob: logs/bs*.log, parser: keyvalue, name_pattern: "
			       "'bs\\d+'}\n"
			       "      |                                                          "
			       "  ^~~~~~~\n");
	fm_free(&f);
}

static void unknown_key_suggests_the_closest(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n  cs: {file: logs/bs512.log, parsr: keyvalue, colour: red}\n");
	assert_false(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":3:30: error: unknown key 'parsr' in run 'cs' (did you mean "
			       "'parser'?)\n"
			       "    3 |   cs: {file: logs/bs512.log, parsr: keyvalue, colour: red}\n"
			       "      |                              ^~~~~\n" MD
			       ":3:47: error: unknown key 'colour' in run 'cs' (known: file, glob, "
			       "parser, name_pattern, run, number_style, delimiter, columns, "
			       "header)\n"
			       "    3 |   cs: {file: logs/bs512.log, parsr: keyvalue, colour: red}\n"
			       "      |                                               ^~~~~~\n");
	assert_int_equal(f.rr.count, 0);
	fm_free(&f);
}

/* A run entry says how its CSV file is written: columns: for a file
 * without a header row, delimiter: for one split by '|'; a .tsv file is
 * the built-in tsv parser's. */
static void run_entry_names_the_columns_of_a_headerless_csv(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n"
		 "  loss: {file: logs/loss.csv, columns: [step, loss]}\n"
		 "  bare: {file: logs/loss.csv, header: false}\n"
		 "  jobs: {file: logs/jobs.txt, parser: csv, delimiter: '|'}\n"
		 "  acc: logs/acc.tsv\n");
	assert_string_equal(cap_text(&f.c), "");
	assert_true(f.ok);
	const struct series *s = run_series(set_named(&f.rr, "loss")->runs[0], "rows");
	assert_int_equal(series_row_count(s), 3);
	assert_string_equal(series_column(s, 1), "loss");
	struct datum v;
	series_cell(s, 2, 1, &v);
	assert_int_equal(v.len, 4);
	assert_memory_equal(v.text, "0.44", 4);
	s = run_series(set_named(&f.rr, "bare")->runs[0], "rows");
	assert_string_equal(series_column(s, 0), "c1");
	assert_int_equal(series_row_count(s), 3);
	s = run_series(set_named(&f.rr, "jobs")->runs[0], "rows");
	assert_string_equal(series_column(s, 1), "state");
	series_cell(s, 1, 1, &v);
	assert_memory_equal(v.text, "FAILED", 6);
	const struct run *acc = set_named(&f.rr, "acc")->runs[0];
	assert_string_equal(run_parser(acc), "tsv");
	assert_string_equal(series_column(run_series(acc, "rows"), 1), "val_acc");
	fm_free(&f);
	/* Not for a parser of another format. */
	load(&f, "runs:\n  x: {file: logs/a.json, delimiter: ';'}\n");
	assert_false(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":3:26: error: parser 'json' reads json: delimiter, columns and "
			       "header are for CSV files\n"
			       "    3 |   x: {file: logs/a.json, delimiter: ';'}\n"
			       "      |                          ^~~~~~~~~\n");
	fm_free(&f);
	/* The formats added later are named too (their names were once
	 * read past the end of a table of four). */
	load(&f, "runs:\n  x: {file: logs/a.json, parser: dllogger, delimiter: ';'}\n");
	assert_false(f.ok);
	assert_non_null(strstr(cap_text(&f.c), "error: parser 'dllogger' reads dllogger: "
					       "delimiter, columns and header are for CSV files\n"));
	fm_free(&f);
	load(&f, "runs:\n  x: {file: logs/a.json, parser: tensorboard, number_style: {decimal: ','}}\n");
	assert_false(f.ok);
	assert_non_null(strstr(cap_text(&f.c), "error: parser 'tensorboard' reads tfevents, whose "
					       "numbers are read as the format writes them"));
	fm_free(&f);
}

static void dot_dot_out_of_the_project_is_an_error(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n  x: logs/../../../../outside/secret.log\n");
	assert_false(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":3:6: error: logs/../../../../outside/secret.log leads outside the "
			       "project: logdown reads nothing there (copy the file into the "
			       "project)\n"
			       "    3 |   x: logs/../../../../outside/secret.log\n"
			       "      |      ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
	assert_int_equal(f.rr.count, 0);
	fm_free(&f);
	/* Also when the file would not exist, and for an absolute path. */
	load(&f, "runs:\n  x: ../../../nope.log\n  y: /etc/hostname\n");
	assert_false(f.ok);
	assert_non_null(strstr(cap_text(&f.c), MD ":3:6: error: ../../../nope.log leads outside "
						   "the project"));
	assert_non_null(strstr(cap_text(&f.c), MD ":4:6: error: /etc/hostname leads outside "
						   "the project"));
	fm_free(&f);
}

static void symlink_leading_outside_is_an_error(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n  leak: {file: logs/leak.log, parser: keyvalue}\n");
	assert_false(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":3:16: error: logs/leak.log leads outside the project: logdown "
			       "reads nothing there (copy the file into the project)\n"
			       "    3 |   leak: {file: logs/leak.log, parser: keyvalue}\n"
			       "      |                ^~~~~~~~~~~~~\n");
	fm_free(&f);
}

static void glob_member_leading_outside_is_an_error_the_rest_load(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n  l: {glob: leaky/*.log, parser: keyvalue}\n");
	assert_false(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":3:13: error: content/hw/leaky/bs2.log leads outside the project: "
			       "logdown reads nothing there (copy the file into the project)\n"
			       "    3 |   l: {glob: leaky/*.log, parser: keyvalue}\n"
			       "      |             ^~~~~~~~~~~\n");
	const struct runset *s = set_named(&f.rr, "l");
	assert_int_equal(s->count, 1);
	assert_string_equal(run_name(s->runs[0]), "bs1");
	fm_free(&f);
}

static void missing_file_and_folder_are_errors(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n"
		 "  a: {file: logs/nope.log, parser: keyvalue}\n"
		 "  b: {file: logs, parser: keyvalue}\n"
		 "  c: {file: logs/bs512.log, parser: keyvalue}\n");
	assert_false(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":3:13: error: cannot read logs/nope.log: No such file or directory\n"
			       "    3 |   a: {file: logs/nope.log, parser: keyvalue}\n"
			       "      |             ^~~~~~~~~~~~~\n" MD
			       ":4:13: error: logs is a folder, not a result file\n"
			       "    4 |   b: {file: logs, parser: keyvalue}\n"
			       "      |             ^~~~\n");
	/* The run that loaded is kept. */
	assert_int_equal(f.rr.count, 1);
	assert_string_equal(f.rr.sets[0].name, "c");
	fm_free(&f);
}

static void run_name_must_be_an_identifier(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n  cs-512: logs/bs512.log\n  2x: logs/bs512.log\n");
	assert_false(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":3:3: error: run name 'cs-512' cannot be written in an expression: "
			       "use letters, digits and '_', not starting with a digit\n"
			       "    3 |   cs-512: logs/bs512.log\n"
			       "      |   ^~~~~~\n" MD
			       ":4:3: error: run name '2x' cannot be written in an expression: use "
			       "letters, digits and '_', not starting with a digit\n"
			       "    4 |   2x: logs/bs512.log\n"
			       "      |   ^~\n");
	assert_int_equal(f.rr.count, 0);
	fm_free(&f);
}

static void entry_shape_errors(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n"
		 "  a: {file: logs/bs512.log, glob: \"logs/*.log\"}\n"
		 "  b: {parser: keyvalue}\n"
		 "  c: {file: logs/bs512.log, name_pattern: '(?<x>.)'}\n"
		 "  d: [logs/bs512.log]\n"
		 "  e: {file: [x]}\n");
	assert_false(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":3:29: error: run 'a' has both file: and glob:; give one\n"
			       "    3 |   a: {file: logs/bs512.log, glob: \"logs/*.log\"}\n"
			       "      |                             ^~~~\n" MD
			       ":4:6: error: run 'b' needs file: (one result file) or glob: (a run "
			       "set)\n"
			       "    4 |   b: {parser: keyvalue}\n"
			       "      |      ^~~~~~~~~~~~~~~~~~\n" MD
			       ":5:29: error: name_pattern names the members of a glob: run 'c' has "
			       "none\n"
			       "    5 |   c: {file: logs/bs512.log, name_pattern: '(?<x>.)'}\n"
			       "      |                             ^~~~~~~~~~~~\n" MD
			       ":6:6: error: run 'd' must be a file path or a map with file: or "
			       "glob:, not a list\n"
			       "    6 |   d: [logs/bs512.log]\n"
			       "      |      ^~~~~~~~~~~~~~~~\n" MD
			       ":7:13: error: 'file' of run 'e' must be a path, not a list\n"
			       "    7 |   e: {file: [x]}\n"
			       "      |             ^~~\n");
	assert_int_equal(f.rr.count, 0);
	fm_free(&f);
}

static void unknown_parser_suggests_the_closest(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n  a: {file: logs/bs512.log, parser: keyvalu}\n");
	assert_false(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":3:37: error: unknown parser 'keyvalu' (did you mean 'keyvalue'?)\n"
			       "    3 |   a: {file: logs/bs512.log, parser: keyvalu}\n"
			       "      |                                     ^~~~~~~\n");
	assert_int_equal(f.rr.count, 0);
	fm_free(&f);
}

static void undetected_file_is_an_error_at_its_path(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs:\n  a: logs/plain.txt\n");
	assert_false(f.ok);
	assert_non_null(strstr(cap_text(&f.c), MD ":3:6: error: cannot tell which parser reads "
						  "content/hw/logs/plain.txt: none recognises it"));
	assert_int_equal(f.rr.count, 0);
	fm_free(&f);
}

static void runs_must_be_a_map(void **state)
{
	(void)state;
	struct fm f;
	load(&f, "runs: [logs/bs512.log]\n");
	assert_false(f.ok);
	assert_string_equal(cap_text(&f.c),
			    MD ":2:7: error: 'runs' must be a map of run names to result files, "
			       "not a list\n"
			       "    2 | runs: [logs/bs512.log]\n"
			       "      |       ^~~~~~~~~~~~~~~~\n");
	fm_free(&f);
	load(&f, "title: no runs\n");
	assert_true(f.ok);
	assert_int_equal(f.rr.count, 0);
	assert_string_equal(cap_text(&f.c), "");
	fm_free(&f);
}

static void free_of_nothing_is_fine(void **state)
{
	(void)state;
	report_runs_free(NULL);
	struct report_runs rr = {0};
	report_runs_free(&rr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(path_alone_is_read_with_the_parser_detected),
		cmocka_unit_test(map_names_the_file_and_the_parser),
		cmocka_unit_test(glob_members_are_sorted_and_named_by_stem),
		cmocka_unit_test(glob_of_real_logs_detects_their_parser),
		cmocka_unit_test(glob_skips_folders_and_escapes_the_report_folder),
		cmocka_unit_test(glob_without_a_match_is_an_error),
		cmocka_unit_test(name_pattern_that_does_not_match_gives_missing_fields),
		cmocka_unit_test(name_pattern_errors_point_into_the_pattern),
		cmocka_unit_test(unknown_key_suggests_the_closest),
		cmocka_unit_test(run_entry_names_the_columns_of_a_headerless_csv),
		cmocka_unit_test(dot_dot_out_of_the_project_is_an_error),
		cmocka_unit_test(symlink_leading_outside_is_an_error),
		cmocka_unit_test(glob_member_leading_outside_is_an_error_the_rest_load),
		cmocka_unit_test(missing_file_and_folder_are_errors),
		cmocka_unit_test(run_name_must_be_an_identifier),
		cmocka_unit_test(entry_shape_errors),
		cmocka_unit_test(unknown_parser_suggests_the_closest),
		cmocka_unit_test(undetected_file_is_an_error_at_its_path),
		cmocka_unit_test(runs_must_be_a_map),
		cmocka_unit_test(free_of_nothing_is_fine),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
