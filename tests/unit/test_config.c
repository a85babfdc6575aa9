/* test_config.c: site.yaml, its defaults and its checks. */
#define _XOPEN_SOURCE 700 /* nftw() */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/config.h"
#include "base/diag.h"
#include "data/limit.h"
#include "base/util.h"
#include "capture.h"

#define TMPDIR_TAG "config"
#include "tmpdirs.h"

/* A project folder under /tmp with an optional site.yaml, and
 * diagnostics captured in memory. */
struct fixture {
	char *root;
	char *site;
	struct capture cap;
	struct config c;
};

static void fx_open(struct fixture *fx, const char *site_yaml)
{
	fx->root = make_tmpdir();
	fx->site = xasprintf("%s/site.yaml", fx->root);
	if (site_yaml) {
		FILE *f = fopen(fx->site, "w");
		assert_non_null(f);
		fputs(site_yaml, f);
		fclose(f);
	}
	cap_open(&fx->cap);
}

/* Writes site_yaml (none when NULL) and loads the project. */
static bool fx_load(struct fixture *fx, const char *site_yaml)
{
	fx_open(fx, site_yaml);
	return config_load(&fx->c, fx->root, fx->cap.d);
}

static const char *fx_text(struct fixture *fx)
{
	return cap_text(&fx->cap);
}

/* Compares the diagnostics with fmt, in which %1$s is site.yaml's path. */
static void fx_expect(struct fixture *fx, const char *fmt)
{
	struct buf want = BUF_INIT;
	for (const char *p = fmt; *p; p++) {
		if (strncmp(p, "%1$s", 4) == 0) {
			buf_puts(&want, fx->site);
			p += 3;
		} else {
			buf_putc(&want, *p);
		}
	}
	assert_string_equal(fx_text(fx), buf_data(&want));
	buf_free(&want);
}

static void fx_close(struct fixture *fx)
{
	config_free(&fx->c);
	cap_close(&fx->cap);
	free(fx->site);
	drop_tmpdir(fx->root);
}

static void assert_defaults(const struct config *c)
{
	assert_string_equal(c->title, "Reports");
	assert_string_equal(c->author, "");
	assert_string_equal(c->base_url, "/");
	assert_string_equal(c->output, "_site");
	assert_string_equal(c->paper, "a4");
}

static void no_site_yaml_gives_the_defaults(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, NULL));
	fx_expect(&fx, "");
	assert_defaults(&fx.c);
	assert_string_equal(fx.c.path, fx.site);
	assert_null(fx.c.raw);
	assert_null(fx.c.parsers);
	assert_int_equal(diag_errors(fx.cap.d), 0);
	fx_close(&fx);
}

static void project_in_the_current_folder_names_plain_site_yaml(void **state)
{
	(void)state;
	char *cwd = getcwd(NULL, 0);
	struct fixture fx;
	fx_open(&fx, NULL);
	assert_int_equal(chdir(fx.root), 0);
	assert_true(config_load(&fx.c, ".", fx.cap.d));
	assert_string_equal(fx.c.path, "site.yaml");
	assert_int_equal(chdir(cwd), 0);
	free(cwd);
	fx_close(&fx);
}

static void empty_site_yaml_gives_the_defaults(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "# nothing set yet\n"));
	fx_expect(&fx, "");
	assert_defaults(&fx.c);
	assert_non_null(fx.c.raw);
	assert_int_equal(fx.c.raw->kind, VALUE_NULL);
	fx_close(&fx);
}

static void every_key_is_read(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "title: Lab reports\n"
				 "author: A. Student\n"
				 "base_url: https://example.org/reports/\n"
				 "output: public\n"
				 "paper: letter\n"
				 "parsers: [tools/parsers, more]\n"));
	fx_expect(&fx, "");
	assert_string_equal(fx.c.title, "Lab reports");
	assert_string_equal(fx.c.author, "A. Student");
	assert_string_equal(fx.c.base_url, "https://example.org/reports/");
	assert_string_equal(fx.c.output, "public");
	assert_string_equal(fx.c.paper, "letter");
	assert_non_null(fx.c.parsers);
	assert_string_equal(fx.c.parsers[0], "tools/parsers");
	assert_string_equal(fx.c.parsers[1], "more");
	assert_null(fx.c.parsers[2]);
	assert_int_equal(fx.c.raw->kind, VALUE_MAP);
	assert_int_equal(fx.c.raw->count, 6);
	fx_close(&fx);
}

static void unset_keys_keep_their_defaults(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "title: Only a title\n"));
	assert_string_equal(fx.c.title, "Only a title");
	assert_string_equal(fx.c.output, "_site");
	assert_string_equal(fx.c.base_url, "/");
	assert_string_equal(fx.c.paper, "a4");
	fx_close(&fx);
}

static void number_title_keeps_its_text(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "title: 2024.10\n"));
	fx_expect(&fx, "");
	assert_string_equal(fx.c.title, "2024.10");
	fx_close(&fx);
}

static void parsers_as_a_string_is_one_folder(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "parsers: my-parsers\n"));
	fx_expect(&fx, "");
	assert_non_null(fx.c.parsers);
	assert_string_equal(fx.c.parsers[0], "my-parsers");
	assert_null(fx.c.parsers[1]);
	fx_close(&fx);
}

static void parsers_as_a_block_list_are_read(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "parsers:\n  - a\n  - b/c\n"));
	assert_string_equal(fx.c.parsers[0], "a");
	assert_string_equal(fx.c.parsers[1], "b/c");
	assert_null(fx.c.parsers[2]);
	fx_close(&fx);
}

static void parsers_as_a_map_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "parsers: {a: b}\n"));
	fx_expect(&fx, "%1$s:1:10: error: 'parsers' must be a folder or a list of folders\n"
		       "    1 | parsers: {a: b}\n"
		       "      |          ^~~~~~\n");
	fx_close(&fx);
}

static void parsers_entry_that_is_a_list_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "parsers: [a, [b]]\n"));
	fx_expect(&fx, "%1$s:1:14: error: 'parsers' entries must be folder paths\n"
		       "    1 | parsers: [a, [b]]\n"
		       "      |              ^~~\n");
	fx_close(&fx);
}

static void bad_parsers_entry_leaves_no_parsers(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "parsers: [a, 7, b]\n"));
	fx_expect(&fx, "%1$s:1:14: error: 'parsers' entries must be folder paths\n"
		       "    1 | parsers: [a, 7, b]\n"
		       "      |              ^\n");
	/* The default, no extra folders, rather than half a list. */
	assert_null(fx.c.parsers);
	fx_close(&fx);
}

static void unknown_key_warns_with_did_you_mean(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "title: T\noutptu: public\n"));
	fx_expect(&fx, "%1$s:2:1: warning: unknown site.yaml key 'outptu' (did you mean 'output'?)\n"
		       "    2 | outptu: public\n"
		       "      | ^~~~~~\n");
	assert_int_equal(diag_warnings(fx.cap.d), 1);
	assert_int_equal(diag_errors(fx.cap.d), 0);
	assert_string_equal(fx.c.output, "_site");
	assert_string_equal(fx.c.title, "T");
	fx_close(&fx);
}

static void limits_are_read_from_site_yaml(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "limits:\n  yaml_depth: 500\n  series_rows: 1_000_000\n"
				 "  pcre_match: 1e7\n"));
	assert_string_equal(fx_text(&fx), "");
	assert_int_equal(limit_get(LIMIT_YAML_DEPTH), 500);
	assert_int_equal(limit_get(LIMIT_SERIES_ROWS), 1000000);
	assert_int_equal(limit_get(LIMIT_PCRE_MATCH), 10000000);
	assert_int_equal(limit_get(LIMIT_EXPR_DEPTH), 200);
	fx_close(&fx);
	/* the next load starts from the defaults again */
	assert_true(fx_load(&fx, "title: T\n"));
	assert_int_equal(limit_get(LIMIT_YAML_DEPTH), 200);
	assert_int_equal(limit_get(LIMIT_SERIES_ROWS), 50000000);
	fx_close(&fx);
}

static void limit_out_of_range_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "limits: {yaml_depth: 100000, expr_depth: -1, glob_files: ten}\n"));
	fx_expect(&fx, "%1$s:1:22: error: limit yaml_depth must be a whole number from 2 to 5000\n"
		       "    1 | limits: {yaml_depth: 100000, expr_depth: -1, glob_files: ten}\n"
		       "      |                      ^~~~~~\n"
		       "%1$s:1:42: error: limit expr_depth must be a whole number from 2 to 2000\n"
		       "    1 | limits: {yaml_depth: 100000, expr_depth: -1, glob_files: ten}\n"
		       "      |                                          ^~\n"
		       "%1$s:1:58: error: limit glob_files must be a whole number from 1 to "
		       "100000000\n"
		       "    1 | limits: {yaml_depth: 100000, expr_depth: -1, glob_files: ten}\n"
		       "      |                                                          ^~~\n");
	assert_int_equal(limit_get(LIMIT_YAML_DEPTH), 200);
	fx_close(&fx);
}

static void unknown_limit_warns_with_did_you_mean(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "limits:\n  yaml_dept: 300\n"));
	fx_expect(&fx, "%1$s:2:3: warning: unknown limit 'yaml_dept' (did you mean 'yaml_depth'?)\n"
		       "    2 |   yaml_dept: 300\n"
		       "      |   ^~~~~~~~~\n");
	fx_close(&fx);
}

static void environment_wins_over_site_yaml(void **state)
{
	(void)state;
	struct fixture fx;
	setenv("LOGDOWN_LIMIT_YAML_DEPTH", "1000", 1);
	setenv("LOGDOWN_LIMIT_GLOB_FILES", "lots", 1);
	assert_false(fx_load(&fx, "limits: {yaml_depth: 300, expr_depth: 400}\n"));
	unsetenv("LOGDOWN_LIMIT_YAML_DEPTH");
	unsetenv("LOGDOWN_LIMIT_GLOB_FILES");
	fx_expect(&fx, "logdown: error: LOGDOWN_LIMIT_GLOB_FILES='lots' is not a whole number from 1 to "
		       "100000000; the default 10000 is used\n");
	assert_int_equal(limit_get(LIMIT_YAML_DEPTH), 1000);
	assert_int_equal(limit_get(LIMIT_EXPR_DEPTH), 400);
	assert_int_equal(limit_get(LIMIT_GLOB_FILES), 10000);
	fx_close(&fx);
	assert_true(fx_load(&fx, NULL));
	assert_int_equal(limit_get(LIMIT_YAML_DEPTH), 200);
	fx_close(&fx);
}

static void unknown_key_far_from_all_lists_the_known_keys(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "stylesheet: x.css\n"));
	fx_expect(&fx, "%1$s:1:1: warning: unknown site.yaml key 'stylesheet' (known keys: title, author, "
		       "base_url, output, paper, parsers, limits, bibliography, citation_style, toc, "
		       "number_sections, footer_hash, allow_numbers)\n"
		       "    1 | stylesheet: x.css\n"
		       "      | ^~~~~~~~~~\n");
	assert_int_equal(diag_warnings(fx.cap.d), 1);
	fx_close(&fx);
}

static void unknown_key_is_an_error_when_strict(void **state)
{
	(void)state;
	struct fixture fx;
	fx_open(&fx, "titel: T\n");
	diag_set_strict(fx.cap.d, true);
	config_load(&fx.c, fx.root, fx.cap.d);
	fx_expect(&fx, "%1$s:1:1: error: unknown site.yaml key 'titel' (did you mean 'title'?)\n"
		       "    1 | titel: T\n"
		       "      | ^~~~~\n");
	assert_int_equal(diag_errors(fx.cap.d), 1);
	fx_close(&fx);
}

static void paper_a5_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "paper: a5\n"));
	fx_expect(&fx, "%1$s:1:8: error: paper must be 'a4' or 'letter', not 'a5'\n"
		       "    1 | paper: a5\n"
		       "      |        ^~\n");
	assert_int_equal(diag_errors(fx.cap.d), 1);
	fx_close(&fx);
}

static void paper_is_read_in_any_case(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "paper: Letter\n"));
	assert_string_equal(fx.c.paper, "letter");
	fx_close(&fx);
	assert_true(fx_load(&fx, "paper: A4\n"));
	assert_string_equal(fx.c.paper, "a4");
	assert_int_equal(diag_errors(fx.cap.d), 0);
	fx_close(&fx);
}

static void bad_paper_leaves_the_default(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "paper: a5\n"));
	/* "c still holds the defaults where a value was bad" (config.h). */
	assert_string_equal(fx.c.paper, "a4");
	fx_close(&fx);
}

static void list_title_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "title: [x]\n"));
	fx_expect(&fx, "%1$s:1:8: error: 'title' must be text, not a list\n"
		       "    1 | title: [x]\n"
		       "      |        ^~~\n");
	assert_string_equal(fx.c.title, "Reports");
	fx_close(&fx);
}

static void boolean_output_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "output: false\n"));
	fx_expect(&fx, "%1$s:1:9: error: 'output' must be text, not a boolean\n"
		       "    1 | output: false\n"
		       "      |         ^~~~~\n");
	assert_string_equal(fx.c.output, "_site");
	fx_close(&fx);
}

static void every_bad_value_is_reported(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "title: [x]\npaper: legal\nauthor: Me\n"));
	fx_expect(&fx, "%1$s:1:8: error: 'title' must be text, not a list\n"
		       "    1 | title: [x]\n"
		       "      |        ^~~\n"
		       "%1$s:2:8: error: paper must be 'a4' or 'letter', not 'legal'\n"
		       "    2 | paper: legal\n"
		       "      |        ^~~~~\n");
	assert_int_equal(diag_errors(fx.cap.d), 2);
	assert_string_equal(fx.c.author, "Me");
	fx_close(&fx);
}

static void site_yaml_that_is_a_list_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "- title: x\n- output: y\n"));
	fx_expect(&fx, "%1$s:1:1: error: site.yaml must be a map of settings (title: ..., output: ...)\n"
		       "    1 | - title: x\n"
		       "      | ^\n");
	assert_defaults(&fx.c);
	fx_close(&fx);
}

static void site_yaml_that_is_text_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "Reports\n"));
	fx_expect(&fx, "%1$s:1:1: error: site.yaml must be a map of settings (title: ..., output: ...)\n"
		       "    1 | Reports\n"
		       "      | ^~~~~~~\n");
	fx_close(&fx);
}

static void malformed_site_yaml_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "title: \"Reports\ndate: x\n"));
	fx_expect(&fx, "%1$s:3:1: error: malformed YAML: found unexpected end of stream\n"
		       "    3 | \n"
		       "      | ^\n"
		       "%1$s:1:8: note: while scanning a quoted scalar (it starts here)\n"
		       "    1 | title: \"Reports\n"
		       "      |        ^\n");
	assert_int_equal(diag_errors(fx.cap.d), 1);
	assert_defaults(&fx.c);
	fx_close(&fx);
}

static void site_yaml_stays_quotable_after_loading(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "title: T\noutput: out\n"));
	/* A later stage reports against site.yaml: it is read again. */
	struct loc at = {fx.site, 2, 9, 3};
	diag_error(fx.cap.d, at, "cannot write");
	fx_expect(&fx, "%1$s:2:9: error: cannot write\n"
		       "    2 | output: out\n"
		       "      |         ^~~\n");
	fx_close(&fx);
}

static void site_yaml_that_is_a_folder_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	fx_open(&fx, NULL);
	assert_int_equal(mkdir(fx.site, 0755), 0);
	assert_false(config_load(&fx.c, fx.root, fx.cap.d));
	fx_expect(&fx, "%1$s: error: cannot read: Is a directory\n");
	assert_defaults(&fx.c);
	fx_close(&fx);
}

static void free_twice_is_harmless(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "parsers: p\n"));
	config_free(&fx.c);
	fx_close(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_site_yaml_gives_the_defaults),
		cmocka_unit_test(project_in_the_current_folder_names_plain_site_yaml),
		cmocka_unit_test(empty_site_yaml_gives_the_defaults),
		cmocka_unit_test(every_key_is_read),
		cmocka_unit_test(unset_keys_keep_their_defaults),
		cmocka_unit_test(number_title_keeps_its_text),
		cmocka_unit_test(parsers_as_a_string_is_one_folder),
		cmocka_unit_test(parsers_as_a_block_list_are_read),
		cmocka_unit_test(parsers_as_a_map_is_an_error),
		cmocka_unit_test(parsers_entry_that_is_a_list_is_an_error),
		cmocka_unit_test(bad_parsers_entry_leaves_no_parsers),
		cmocka_unit_test(unknown_key_warns_with_did_you_mean),
		cmocka_unit_test(unknown_key_far_from_all_lists_the_known_keys),
		cmocka_unit_test(limits_are_read_from_site_yaml),
		cmocka_unit_test(limit_out_of_range_is_an_error),
		cmocka_unit_test(unknown_limit_warns_with_did_you_mean),
		cmocka_unit_test(environment_wins_over_site_yaml),
		cmocka_unit_test(unknown_key_is_an_error_when_strict),
		cmocka_unit_test(paper_a5_is_an_error),
		cmocka_unit_test(bad_paper_leaves_the_default),
		cmocka_unit_test(list_title_is_an_error),
		cmocka_unit_test(boolean_output_is_an_error),
		cmocka_unit_test(every_bad_value_is_reported),
		cmocka_unit_test(site_yaml_that_is_a_list_is_an_error),
		cmocka_unit_test(site_yaml_that_is_text_is_an_error),
		cmocka_unit_test(malformed_site_yaml_is_an_error),
		cmocka_unit_test(site_yaml_stays_quotable_after_loading),
		cmocka_unit_test(site_yaml_that_is_a_folder_is_an_error),
		cmocka_unit_test(free_twice_is_harmless),
		cmocka_unit_test(paper_is_read_in_any_case),
	};
	return cmocka_run_group_tests(tests, NULL, drop_leftovers);
}
