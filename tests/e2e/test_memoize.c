/* test_memoize.c: a report's memo (data/memo.h, resolve/memoize.h): the
 * values that read whole series and the charts kept by the keys of
 * their inputs.
 *
 * A build that takes them from the memo gives the site a build without
 * the cache gives; each input a value or chart reads invalidates it (a
 * rewritten log, a changed parser, a changed chart, a changed format);
 * a memo altered, truncated or sealed with another key is one warning
 * and is not used; and a prose edit over a log of millions of rows
 * reads none of them again (release binary, bounded.h).  A big log's
 * raw copy made early, on a thread of its own (site/earlycopy.c), is
 * the copy made late.  The memo's
 * file at the level of its functions: tests/unit/test_memo.c. */
#define _GNU_SOURCE
#include "e2e.h"

#include <grp.h>
#include <xxhash.h>

#include "bounded.h"

#include "base/version.h"
#include "data/seal.h"

#define REPORT_HEAD "---\ntitle: R\nruns:\n  cs: {file: ../logs/a.log, parser: cerebras}\n---\n"
#define REPORT_VALUES                                                                          \
	"Mean {{ mean(cs.train.loss) :.3f }}, least {{ min(cs.train.loss) }}, most rate "      \
	"{{ max(cs.train.rate) }}.\n\n"
#define CHART(more) "```{chart}\ntype: line\n" more "series: cs\nx: train.step\ny: train.loss\n```\n"
#define REPORT_BODY REPORT_VALUES CHART("")

static char *project(void)
{
	return e2e_project(E2E_FILES(E2E_COPY("logs/a.log", "tests/fixtures/cerebras/bs512.log"),
				     E2E_TEXT("content/r.md", REPORT_HEAD REPORT_BODY)));
}

/* A key folder of the test's own (XDG_CACHE_HOME), as test_cache.c. */
static char *key_home(void)
{
	char *home = e2e_tmpdir();
	assert_int_equal(setenv("XDG_CACHE_HOME", home, 1), 0);
	return home;
}

static void drop_key_home(char **home)
{
	e2e_drop(home);
	unsetenv("XDG_CACHE_HOME");
}

/* dir/_site equals a build without the cache (dir/full). */
static void same_as_without_cache(const char *dir)
{
	e2e_ok_plain(dir, "build --no-cache -o full");
	char *cmd = xasprintf("diff -r '%s/_site' '%s/full' >&2", dir, dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* A prose edit, then a build that must succeed; its stderr (caller
 * frees). */
static char *edit_and_build(const char *dir, const char *rel)
{
	e2e_append(dir, rel, "\nMore prose.\n");
	struct proc r = e2e_run(dir, "build -v");
	if (r.status != 0)
		fail_msg("build failed:\n%s", r.err);
	char *err = xstrdup(r.err);
	proc_free(&r);
	return err;
}

/* The names of the memo files in dir's cache. */
static char **memos(const char *dir, size_t *n)
{
	char *cache = path_join(dir, ".logdown-cache");
	size_t all;
	char **names = dir_list(cache, &all);
	assert_non_null(names);
	*n = 0;
	for (size_t i = 0; i < all; i++)
		if (str_has_prefix(names[i], "memo-"))
			names[(*n)++] = names[i];
		else
			free(names[i]);
	names[*n] = NULL;
	free(cache);
	return names;
}

/* The path of the one memo in dir's cache (caller frees). */
static char *the_memo(const char *dir)
{
	size_t n;
	char **names = memos(dir, &n);
	assert_int_equal(n, 1);
	char *rel = xasprintf(".logdown-cache/%s", names[0]);
	char *path = path_join(dir, rel);
	free(rel);
	strv_free(names);
	return path;
}

static void page_has(const char *dir, const char *what)
{
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_non_null(page);
	assert_contains(page, what);
	free(page);
}

static char *figure(const char *dir)
{
	char *svg = e2e_read(dir, "_site/r/figures/figure-1.svg");
	assert_non_null(svg);
	return svg;
}

/* The example content and a report with mean(), min(), max() and a
 * chart: after a prose edit of every report, whose values and charts
 * then come from the memo, the site is a fresh build's. */
static void a_prose_edit_builds_what_a_fresh_build_does(void **state)
{
	(void)state;
	char *home = key_home();
	char *dir = project();
	e2e_ok(dir, "build");
	char *err = edit_and_build(dir, "content/r.md");
	assert_contains(err, "1 report: 1 rendered, 0 from cache");
	free(err);
	page_has(dir, ">7.773</span>");
	page_has(dir, ">7.12500</a>");
	page_has(dir, ">2983.97</a>");
	same_as_without_cache(dir);
	/* nothing but its report's entries: one memo, for r.md */
	char *memo = the_memo(dir);
	free(memo);
	e2e_drop(&dir);

	/* the examples: test_cache builds them under memcheck already */
	if (getenv("LOGDOWN_VALGRIND")) {
		drop_key_home(&home);
		return;
	}
	dir = e2e_tmpdir();
	char *cmd = xasprintf("cp -r site.yaml content '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	e2e_ok(dir, "build");
	int status;
	char *out = e2e_sh(&status,
			   "cd '%s' && find content -name '*.md' -exec sh -c "
			   "'printf \"\\nMore prose.\\n\" >> \"$1\"' _ {} \\;",
			   dir);
	assert_int_equal(status, 0);
	free(out);
	struct proc r = e2e_run(dir, "build -v");
	if (r.status != 0)
		fail_msg("build failed:\n%s", r.err);
	assert_contains(r.err, " rendered, 0 from cache; ");
	proc_free(&r);
	size_t n;
	char **names = memos(dir, &n);
	/* the four reports, each with values or charts kept */
	if (n < 4)
		fail_msg("only %zu memos for the examples", n);
	strv_free(names);
	same_as_without_cache(dir);
	e2e_drop(&dir);
	drop_key_home(&home);
}

/* Replaces the first `from` in dir/rel by `to` (as long). */
static void replace_in(const char *dir, const char *rel, const char *from, const char *to)
{
	char *path = path_join(dir, rel);
	struct buf b = BUF_INIT;
	assert_true(file_read(path, &b, NULL));
	char *at = memmem(b.data, b.len, from, strlen(from));
	assert_non_null(at);
	assert_int_equal(strlen(from), strlen(to));
	memcpy(at, to, strlen(to));
	assert_true(file_write(path, b.data, b.len));
	buf_free(&b);
	free(path);
}

/* Each input invalidates what reads it, and only a build's own answer
 * is shown: a rewritten log, a parser, the chart's block, a value's
 * format. */
static void each_input_invalidates_what_reads_it(void **state)
{
	(void)state;
	char *home = key_home();
	char *dir = project();
	e2e_ok(dir, "build");
	free(edit_and_build(dir, "content/r.md"));
	page_has(dir, ">7.773</span>");
	char *svg0 = figure(dir);

	/* the log rewritten (same size): the values and the chart */
	replace_in(dir, "logs/a.log", "Loss=9.39062", "Loss=1.39062");
	free(edit_and_build(dir, "content/r.md"));
	page_has(dir, ">6.973</span>");
	page_has(dir, ">1.39062</a>");
	char *svg1 = figure(dir);
	assert_string_not_equal(svg0, svg1);
	same_as_without_cache(dir);

	/* the parser: its loss is now the log's rate */
	e2e_write(dir, "parsers/cerebras.yaml",
		  "name: cerebras\ndetect: 'Train Device='\nseries:\n  train:\n"
		  "    pattern: 'Step=(?<step>\\d+), Loss=[\\d.]+, Rate=(?<loss>[\\d.]+) "
		  "samples/sec, GlobalRate=(?<rate>[\\d.]+)'\n"
		  "    columns: [step, loss, rate]\n");
	free(edit_and_build(dir, "content/r.md"));
	page_has(dir, ">2930.307</span>");
	char *svg2 = figure(dir);
	assert_string_not_equal(svg1, svg2);
	same_as_without_cache(dir);

	/* the chart's block: a log axis */
	e2e_write(dir, "content/r.md", REPORT_HEAD REPORT_VALUES CHART("y_log: true\n"));
	free(edit_and_build(dir, "content/r.md"));
	char *svg3 = figure(dir);
	assert_string_not_equal(svg2, svg3);
	same_as_without_cache(dir);

	/* a value's format */
	replace_in(dir, "content/r.md", ":.3f", ":.1f");
	free(edit_and_build(dir, "content/r.md"));
	page_has(dir, ">2930.3</span>");
	same_as_without_cache(dir);
	free(svg0);
	free(svg1);
	free(svg2);
	free(svg3);
	e2e_drop(&dir);
	drop_key_home(&home);
}

#define TABLE_HEAD                                                                             \
	"---\ntitle: R\nruns:\n  cs: {file: ../logs/a.log, parser: cerebras}\n"               \
	"  cs2: {file: ../logs/b.log, parser: cerebras}\n---\n"
#define TABLE                                                                                  \
	"```{table}\nrows: [cs, cs2]\ncolumns:\n  Run: batch_size\n"                             \
	"  Mean loss: mean(train.loss) :.4f\n  Most rate: max(train.rate)\n"                     \
	"where: count(train.step) > 5\nsort: -mean(train.loss)\n```\n"

/* A table's cells, where and sort through the memo: each row keeps its
 * own values (the same expression, another run; the runs two parsers
 * split one file into), a rewritten log changes its row's, and each
 * build is a fresh build's. */
static void a_table_s_rows_each_keep_their_own_values(void **state)
{
	(void)state;
	char *home = key_home();
	char *dir = e2e_project(
		E2E_FILES(E2E_COPY("logs/a.log", "tests/fixtures/cerebras/bs512.log"),
			  E2E_COPY("logs/b.log", "tests/fixtures/cerebras/bs2048.log"),
			  E2E_TEXT("content/r.md", TABLE_HEAD "Intro.\n\n" TABLE)));
	e2e_ok(dir, "build");
	char *page0 = e2e_read(dir, "_site/r/index.html");
	assert_non_null(page0);
	char *err = edit_and_build(dir, "content/r.md");
	assert_contains(err, "1 report: 1 rendered, 0 from cache");
	free(err);
	char *page1 = e2e_read(dir, "_site/r/index.html");
	assert_non_null(page1);
	/* the rows, means and rates of the first build, in its order */
	char *t0 = strstr(page0, "<table"), *t1 = strstr(page1, "<table");
	assert_non_null(t0);
	assert_non_null(t1);
	assert_memory_equal(t0, t1, (size_t)(strstr(t0, "</table>") - t0));
	page_has(dir, ">7.7727</span>");
	page_has(dir, ">7.6953</span>");
	same_as_without_cache(dir);

	/* the first log rewritten: its row's values change, the other's
	 * stay, the order follows the new means */
	replace_in(dir, "logs/a.log", "Loss=9.39062", "Loss=1.39062");
	free(edit_and_build(dir, "content/r.md"));
	char *page2 = e2e_read(dir, "_site/r/index.html");
	assert_non_null(page2);
	char *mine = strstr(page2, ">6.9727</span>"), *other = strstr(page2, ">7.6953</span>");
	assert_non_null(mine);
	assert_non_null(other);
	assert_true(other < mine);
	free(page2);
	same_as_without_cache(dir);
	free(page0);
	free(page1);
	e2e_drop(&dir);

	/* one file split into runs by two parsers, one reading the rate as
	 * the loss: each table its own means */
	dir = e2e_project(E2E_FILES(
		E2E_COPY("logs/a.log", "tests/fixtures/cerebras/bs512.log"),
		E2E_COPY("logs/b.log", "tests/fixtures/cerebras/bs2048.log"),
		E2E_TEXT("parsers/swapped.yaml",
			 "name: swapped\nsplit: { end: 'Processed \\d+ sample' }\nseries:\n  "
			 "train:\n    pattern: 'Step=(?<step>\\d+), Loss=[\\d.]+, "
			 "Rate=(?<loss>[\\d.]+) samples/sec'\n    columns: [step, loss]\n"),
		E2E_TEXT("content/r.md",
			 "---\ntitle: R\nruns:\n  p: {file: ../logs/both.log, parser: cerebras}\n"
			 "  q: {file: ../logs/both.log, parser: swapped}\n---\n\n```{table}\nrows: "
			 "p\ncolumns:\n  Mean: mean(train.loss) :.4f\n```\n\n```{table}\nrows: "
			 "q\ncolumns:\n  Mean: mean(train.loss) :.4f\n```\n")));
	int status;
	free(e2e_sh(&status, "cd '%s' && cat logs/a.log logs/b.log > logs/both.log", dir));
	assert_int_equal(status, 0);
	e2e_ok(dir, "build");
	free(edit_and_build(dir, "content/r.md"));
	page_has(dir, ">7.7727</span>");
	page_has(dir, ">7.6953</span>");
	page_has(dir, ">2930.3070</span>");
	page_has(dir, ">6737.6030</span>");
	same_as_without_cache(dir);
	e2e_drop(&dir);
	drop_key_home(&home);
}

/* The length of a cache file's header (cache.c's put_header()). */
static size_t header_len(void)
{
	return 14 + 4 + 4 + 8 + strlen(LOGDOWN_VERSION) + SEAL_ID_BYTES;
}

/* Re-checksums a cache file: its last 8 bytes, XXH3-64 of all before,
 * as one who knows the format would. */
static void fix_checksum(struct buf *b)
{
	uint64_t sum = XXH3_64bits(b->data, b->len - 8);
	memcpy(b->data + b->len - 8, &sum, 8);
}

enum spoil { ALTERED, TRUNCATED, FOREIGN };

/* Spoils the memo of dir's one report: the smallest loss it keeps,
 * 7.12500, becomes 9.12500 (checksum fixed up, the seal not: ALTERED;
 * sealed again with a key of the test's own: FOREIGN), or the file is
 * cut in half (TRUNCATED). */
static void spoil(const char *dir, enum spoil how)
{
	char *path = the_memo(dir);
	struct buf b = BUF_INIT;
	assert_true(file_read(path, &b, NULL));
	assert_true(b.len > header_len() + 40);
	if (how == TRUNCATED) {
		b.len /= 2;
	} else {
		char *at = memmem(b.data, b.len, "7.12500", 7);
		assert_non_null(at);
		at[0] = '9';
		if (how == FOREIGN) {
			unsigned char raw[SEAL_KEY_BYTES];
			for (size_t i = 0; i < sizeof raw; i++)
				raw[i] = (unsigned char)(i * 37 + 11);
			struct seal_key k;
			seal_key_from(&k, raw);
			size_t h = header_len();
			memcpy(b.data + h - SEAL_ID_BYTES, k.id, SEAL_ID_BYTES);
			seal_make(&k, b.data, h, b.data + h, b.len - h - SEAL_BYTES - 8,
				  (unsigned char *)b.data + b.len - SEAL_BYTES - 8);
		}
		fix_checksum(&b);
	}
	assert_true(file_write(path, b.data, b.len));
	buf_free(&b);
	free(path);
}

/* A memo altered (its checksum fixed up), truncated, or sealed with
 * another key is one warning, is not used, and is replaced: the page
 * shows what the log says, as a fresh build does. */
static void a_spoiled_memo_is_a_warning_and_never_used(void **state)
{
	(void)state;
	static const struct {
		enum spoil how;
		const char *why;
	} cases[] = {
		{ALTERED, "warning: the build cache is altered (its seal does not match: changed by "
			  "something other than logdown): ignored (logdown rebuilds it; `logdown "
			  "clean` removes it)\n"},
		{TRUNCATED, "warning: the build cache is damaged or not logdown's: ignored"},
		{FOREIGN, "warning: the build cache is not this user's (sealed with another key: "
			  "written by another user or on another machine): ignored"},
	};
	char *home = key_home();
	/* under memcheck one case: the three take the same path */
	size_t ncases = getenv("LOGDOWN_VALGRIND") ? 1 : ARRAY_LEN(cases);
	for (size_t i = 0; i < ncases; i++) {
		char *dir = project();
		e2e_ok(dir, "build");
		free(edit_and_build(dir, "content/r.md"));
		spoil(dir, cases[i].how);
		char *err = edit_and_build(dir, "content/r.md");
		assert_contains(err, ".logdown-cache/memo-");
		assert_contains(err, cases[i].why);
		free(err);
		page_has(dir, ">7.12500</a>");
		char *page = e2e_read(dir, "_site/r/index.html");
		assert_not_contains(page, "9.125");
		free(page);
		same_as_without_cache(dir);
		/* written again: the next build uses it, without a word */
		err = edit_and_build(dir, "content/r.md");
		assert_not_contains(err, "warning");
		free(err);
		page_has(dir, ">7.12500</a>");
		e2e_drop(&dir);
	}
	drop_key_home(&home);
}

/* A removed report's memo is removed; a report's memo keeps only what
 * its last render used. */
static void memos_do_not_grow_over_edits(void **state)
{
	(void)state;
	char *home = key_home();
	char *dir = project();
	e2e_write(dir, "content/s.md", REPORT_HEAD "Mean {{ mean(cs.train.rate) }}.\n");
	e2e_ok(dir, "build");
	size_t n;
	strv_free(memos(dir, &n));
	assert_int_equal(n, 2);
	char *path = path_join(dir, "content/s.md");
	assert_int_equal(unlink(path), 0);
	free(path);
	e2e_ok(dir, "build");
	char *memo = the_memo(dir);
	struct buf b = BUF_INIT;
	assert_true(file_read(memo, &b, NULL));
	size_t first = b.len;
	/* twenty different charts, one after the other: the memo holds one */
	for (int i = 0; i < 20; i++) {
		char *text = xasprintf(REPORT_HEAD REPORT_VALUES CHART("title: T%d\n"), i);
		e2e_write(dir, "content/r.md", text);
		free(text);
		e2e_ok(dir, "build");
		if (getenv("LOGDOWN_VALGRIND") && i == 2)
			break;
	}
	buf_clear(&b);
	assert_true(file_read(memo, &b, NULL));
	if (b.len > first + first / 2)
		fail_msg("the memo grew from %zu to %zu bytes", first, b.len);
	buf_free(&b);
	free(memo);
	e2e_drop(&dir);
	drop_key_home(&home);
}

/* A log of rows rows in the Cerebras parser's form. */
static void write_log(const char *path, long rows)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("Effective batch size is 512.\n", f);
	for (long i = 1; i <= rows; i++)
		fprintf(f, "| Train Device=CSX, Step=%ld, Loss=%.5f, Rate=%.2f samples/sec\n", i,
			1.0 / (1.0 + (double)i * 1e-4), 2900.0 + (double)(i % 97));
	assert_int_equal(fclose(f), 0);
}

static struct bounded timed_build(const char *rel, const char *dir)
{
	const char *argv[] = {"logdown", "build", "-v", NULL};
	struct bounded b = bounded_run(rel, dir, argv, NULL, 600);
	if (b.status != 0)
		fail_msg("build failed:\n%s", b.err);
	return b;
}

/* A prose edit of a report with mean(), a chart, a table's min() and
 * sort and a claim on a max() over a log of two million rows reads none
 * of them again: a fraction of the first
 * build's CPU time and memory (the first parses the log and writes the
 * run store; the edit's build maps the store and takes the mean and
 * the chart from the memo).  Measured here: about 1.5 s and 250 MB
 * against 0.02 s and 23 MB. */
static void a_prose_edit_over_millions_of_rows_reads_none_of_them(void **state)
{
	(void)state;
	const char *rel = bounded_release_or_skip();
	char *home = key_home();
	char *dir = e2e_project(E2E_FILES(
		E2E_TEXT("content/r.md", "---\ntitle: R\nruns:\n  cs: {file: ../logs/a.log, "
					 "parser: cerebras}\nexpect:\n  max(cs.train.step): '> "
					 "1000'\n---\nMean {{ mean(cs.train.rate) :.2f }}, last "
						     "{{ cs.final_loss }}.\n\n```{chart}\ntype: "
						     "line\nseries: cs\nx: train.step\ny: "
						     "train.loss\n```\n\n```{table}\nrows: [cs]\n"
						     "columns:\n  Least rate: min(train.rate)\n"
						     "sort: -max(train.loss)\n```\n")));
	char *logs = path_join(dir, "logs");
	assert_int_equal(mkdir(logs, 0755), 0);
	char *log = path_join(dir, "logs/a.log");
	write_log(log, 2000000);
	/* the log older than the window in which a file's hash is not
	 * remembered (written under 2 s ago, cache.c's RACY_NS) */
	struct timespec two = {2, 200000000};
	nanosleep(&two, NULL);
	struct bounded first = timed_build(rel, dir);
	assert_contains(first.err, "1 parsed, 0 from cache");
	/* the first build noted its store as checked (it sealed what it
	 * wrote): the first prose edit right after it reads nothing of it
	 * either (it took the store's digest again: 0.45 s for 1 GB) */
	e2e_append(dir, "content/r.md", "\nMore prose.\n");
	struct bounded second = timed_build(rel, dir);
	assert_contains(second.err, "0 parsed, 1 from cache");
	if (second.cpu_secs > first.cpu_secs / 8 + 0.05)
		fail_msg("the first prose edit took %.2f s of CPU, the first build %.2f s",
			 second.cpu_secs, first.cpu_secs);
	e2e_append(dir, "content/r.md", "\nMore prose.\n");
	struct bounded edit = timed_build(rel, dir);
	assert_contains(edit.err, "0 parsed, 1 from cache");
	print_message("           first build %.2f s CPU, %ld KB; prose edits %.2f and %.2f s CPU, "
		      "%ld and %ld KB\n",
		      first.cpu_secs, first.maxrss_kb, second.cpu_secs, edit.cpu_secs,
		      second.maxrss_kb, edit.maxrss_kb);
	if (edit.cpu_secs > first.cpu_secs / 8 + 0.05)
		fail_msg("a prose edit took %.2f s of CPU, the first build %.2f s", edit.cpu_secs,
			 first.cpu_secs);
	if (edit.maxrss_kb > 0 && (edit.maxrss_kb > 100 * 1024 || edit.maxrss_kb * 4 > first.maxrss_kb))
		fail_msg("a prose edit took %ld KB, the first build %ld KB", edit.maxrss_kb,
			 first.maxrss_kb);
	same_as_without_cache(dir);
	bounded_free(&first);
	bounded_free(&second);
	bounded_free(&edit);
	free(log);
	free(logs);
	e2e_drop(&dir);
	drop_key_home(&home);
}

/* The first build over a big log holds its run once, and compact: its
 * rows in memory while they are parsed and stored (about 42 bytes a
 * Cerebras row: a number whose text gives it back keeps no double,
 * run.c), then read in place from the store (the rows in memory freed
 * and given back before the report reads them, the store's pages a
 * whole column brought in given back once read), never a copy of a
 * column beside them.  Its peak memory is the rows, the scanner's
 * buffers and the program: here about 67 MB for a 42 MB log, where rows
 * of 82 bytes (a double a cell, a line and a record pointer of 8 bytes)
 * measured 90 MB; a run held twice, or beside its columns, would be
 * well past the bound.  The site is the one a build without the cache
 * makes. */
static void a_first_build_holds_its_run_once(void **state)
{
	(void)state;
	const char *rel = bounded_release_or_skip();
	char *home = key_home();
	char *dir = e2e_project(E2E_FILES(
		E2E_TEXT("content/r.md", REPORT_HEAD "Mean {{ mean(cs.train.rate) :.2f }}, last "
						     "{{ cs.final_loss }}, rate {{ cs.mean_rate :.2f }} on average.\n\n```{chart}\ntype: "
						     "line\nseries: cs\nx: train.step\ny: "
						     "train.loss\n```\n")));
	char *logs = path_join(dir, "logs");
	assert_int_equal(mkdir(logs, 0755), 0);
	char *log = path_join(dir, "logs/a.log");
	write_log(log, 600000);
	struct stat st;
	assert_int_equal(stat(log, &st), 0);
	/* older than the window in which a file's hash is not remembered */
	struct timespec two = {2, 200000000};
	nanosleep(&two, NULL);
	struct bounded first = timed_build(rel, dir);
	assert_contains(first.err, "1 parsed, 0 from cache");
	long log_kb = (long)(st.st_size / 1024);
	print_message("           first build over a %ld KB log: %.2f s CPU, %ld KB\n", log_kb,
		      first.cpu_secs, first.maxrss_kb);
	if (first.maxrss_kb > 0 && first.maxrss_kb > log_kb * 3 / 4 + 45 * 1024)
		fail_msg("the first build took %ld KB for a %ld KB log", first.maxrss_kb, log_kb);
	same_as_without_cache(dir);
	/* The store written on two threads (each half of the rows, the seal
	 * taken beside the reports) is the one one thread writes, byte for
	 * byte, and so is the site. */
	char *cmd = xasprintf("cd '%s' && cp -r .logdown-cache/runs runs2 && cp -r _site site2 && "
			      "rm -rf .logdown-cache _site",
			      dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	const char *argv[] = {"logdown", "build", "-v", NULL};
	const char *one[] = {"LOGDOWN_STORE_THREADS=1", NULL};
	struct bounded single = bounded_run(rel, dir, argv, one, 600);
	assert_int_equal(single.status, 0);
	assert_contains(single.err, "1 parsed, 0 from cache");
	print_message("           the same on one thread: %.2f s CPU, %ld KB\n", single.cpu_secs,
		      single.maxrss_kb);
	cmd = xasprintf("cd '%s' && diff -r runs2 .logdown-cache/runs >&2 && diff -r site2 _site >&2",
			dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	bounded_free(&single);
	/* Scanned on one thread, the derives' aggregates (mean_rate) are
	 * folded after the parse; with the scanners, by the row builder
	 * chunk by chunk as the rows come: the store, which holds the
	 * derived fields, is the same byte for byte, and so is the site
	 * (the resume state also notes which thread found what: not
	 * compared).  Then a line appended: the rebuild's derives go on
	 * from the aggregates the builder kept with the state, and show
	 * what a build without the cache shows. */
	cmd = xasprintf("cd '%s' && rm -rf .logdown-cache _site", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	const char *scan_one[] = {"LOGDOWN_SCAN_THREADS=1", NULL};
	single = bounded_run(rel, dir, argv, scan_one, 600);
	assert_int_equal(single.status, 0);
	assert_contains(single.err, "1 parsed, 0 from cache");
	bounded_free(&single);
	cmd = xasprintf("cd '%s' && diff -r -x '*.scan' runs2 .logdown-cache/runs >&2 && "
			"diff -r site2 _site >&2 && rm -rf .logdown-cache _site",
			dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	e2e_ok(dir, "build");
	e2e_append(dir, "logs/a.log",
		   "| Train Device=CSX, Step=600001, Loss=0.49000, Rate=3011.25 samples/sec\n");
	struct proc grown = e2e_run(dir, "build -v");
	assert_int_equal(grown.status, 0);
	assert_contains(grown.err, "1 parsed (1 continued), 0 from cache");
	proc_free(&grown);
	page_has(dir, ">2948.00</span> on average");
	same_as_without_cache(dir);
	bounded_free(&first);
	free(log);
	free(logs);
	e2e_drop(&dir);
	drop_key_home(&home);
}

/* A result file of 16 MiB or more is copied into the site on a thread of
 * its own as its report begins (site/earlycopy.c), not after its charts:
 * the site is the one a build copying it last gives (a build over the
 * previous output, which copies late), a log the report declares but
 * never uses leaves no copy behind, and a log changed a moment ago
 * (copied late: its times might not show a write in the same tick) is
 * copied right. */
static void a_big_logs_early_copy_is_the_late_copy(void **state)
{
	(void)state;
	char *home = key_home();
	char *dir = e2e_project(E2E_FILES(E2E_TEXT(
		"content/r.md", "---\ntitle: R\nruns:\n  cs: {file: ../logs/a.log, parser: cerebras}\n"
				"  unused: {file: ../logs/b.log, parser: cerebras}\n---\n"
				"Last {{ cs.final_loss }} at {{ cs.final_step }}.\n")));
	char *logs = path_join(dir, "logs");
	assert_int_equal(mkdir(logs, 0755), 0);
	char *a = path_join(dir, "logs/a.log"), *b = path_join(dir, "logs/b.log");
	write_log(a, 260000);
	write_log(b, 250000);
	struct stat st;
	assert_int_equal(stat(b, &st), 0);
	assert_true(st.st_size >= 16 << 20);
	/* older than the window in which a file's times are not trusted */
	struct timespec two = {2, 200000000};
	nanosleep(&two, NULL);
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "run 'unused' is never used");
	proc_free(&r);
	const char *check = "cmp logs/a.log _site/r/logs/_/logs/a.log && "
			    "test ! -e _site/r/logs/_/logs/b.log && "
			    "test -z \"$(find _site -name '.logdown-early-*')\" && "
			    "test -z \"$(find . -maxdepth 1 -name '.*tmp-*')\"";
	char *cmd = xasprintf("cd '%s' && %s && cp -r _site early", dir, check);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	/* the previous output holds the report: copied when its page is */
	e2e_ok(dir, "build --no-cache");
	cmd = xasprintf("cd '%s' && diff -r early _site >&2", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	/* a log changed a moment ago, no previous output */
	e2e_append(dir, "logs/a.log", "| Train Device=CSX, Step=260001, Loss=0.5, Rate=1.0 samples/sec\n");
	cmd = xasprintf("cd '%s' && rm -rf _site .logdown-cache", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	cmd = xasprintf("cd '%s' && %s && grep -q 'Step=260001' _site/r/logs/_/logs/a.log", dir,
			check);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(a);
	free(b);
	free(logs);
	e2e_drop(&dir);
	drop_key_home(&home);
}

/* A first build's mean over a column whose mean a parser's derive takes
 * (Cerebras's mean_rate: mean(train.rate)) is the parse's own fold,
 * taken up rather than folded again over the store's rows: the memo it
 * keeps, the page and the stored run are those of a build that folded
 * the store's rows (the memo removed, the run read from its store). */
static void a_first_builds_mean_from_the_parse_is_the_stores_fold(void **state)
{
	(void)state;
	char *home = key_home();
	char *dir = e2e_project(E2E_FILES(
		E2E_COPY("logs/a.log", "tests/fixtures/cerebras/bs512.log"),
		E2E_TEXT("content/r.md", REPORT_HEAD "Rate {{ mean(cs.train.rate) }} and "
						     "{{ cs.mean_rate }}, loss "
						     "{{ mean(cs.train.loss) }}.\n")));
	e2e_ok(dir, "build");
	int status;
	free(e2e_sh(&status, "cd '%s' && mkdir first && cp .logdown-cache/memo-* "
			     ".logdown-cache/runs/*.run first/ && cp -r _site first/site && rm "
			     ".logdown-cache/reports-* .logdown-cache/memo-*",
		    dir));
	assert_int_equal(status, 0);
	struct proc r = e2e_run(dir, "build -v");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "0 parsed");
	proc_free(&r);
	char *diff = e2e_sh(&status, "cd '%s' && for f in first/memo-* first/*.run; do cmp \"$f\" "
				     "\"$(ls .logdown-cache/memo-* .logdown-cache/runs/*.run | grep "
				     "\"$(basename \"$f\")\")\" || exit 1; done && diff -r first/site "
				     "_site",
			    dir);
	if (status != 0)
		fail_msg("the first build's memo, store or site differ:\n%s", diff);
	free(diff);
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_contains(page, "Rate ");
	free(page);
	same_as_without_cache(dir);
	e2e_drop(&dir);
	drop_key_home(&home);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_prose_edit_builds_what_a_fresh_build_does),
		cmocka_unit_test(each_input_invalidates_what_reads_it),
		cmocka_unit_test(a_table_s_rows_each_keep_their_own_values),
		cmocka_unit_test(a_spoiled_memo_is_a_warning_and_never_used),
		cmocka_unit_test(memos_do_not_grow_over_edits),
		cmocka_unit_test(a_prose_edit_over_millions_of_rows_reads_none_of_them),
		cmocka_unit_test(a_first_build_holds_its_run_once),
		cmocka_unit_test(a_big_logs_early_copy_is_the_late_copy),
		cmocka_unit_test(a_first_builds_mean_from_the_parse_is_the_stores_fold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
